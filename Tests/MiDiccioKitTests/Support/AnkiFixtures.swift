import Foundation
import MiDiccioLibrary

extension ImportOptions {
    /// Options for importing an Anki package: the fields chosen, duplicates skipped or not.
    static func anki(fields: [[String]] = [], skipDuplicates: Bool = false) -> ImportOptions {
        var options = ImportOptions()
        options.ankiFields = fields
        options.skipDuplicates = skipDuplicates
        return options
    }
}
