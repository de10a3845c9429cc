import Foundation
import MiDiccioKit
import Testing

@testable import MiDiccioCLI
@testable import MiDiccioCLICore

/// Finding 10: sync on open waits a few seconds; when that is not enough it says why,
/// from what the sync was doing, and never calls a local folder slow.
@Suite("Sync on open that runs out of time says why")
struct SyncOnOpenPatienceTests {
    @Test("still waiting for the cloud's first answer is a slow cloud", arguments: [nil, SyncActivity.reachingCloud])
    func slowCloud(activity: SyncActivity?) {
        #expect(SyncOnOpen.unfinished(activity) == "the cloud is slow to answer")
    }

    @Test(
        "a sync that got its answers and is still working says it needs longer, and how to finish it",
        arguments: [SyncActivity.downloading, .merging(words: 100_000), .uploading(words: 3), .tidying])
    func longSync(activity: SyncActivity) {
        let text = SyncOnOpen.unfinished(activity)
        #expect(text.contains("needs longer"))
        #expect(text.contains("run 'midiccio sync'"))
        #expect(!text.contains("slow"))
    }
}
