// The CloudKit container and API token built into this binary, if any.
//
// `make build MIDICCIO_ICLOUD_CONTAINER=ID MIDICCIO_ICLOUD_API_TOKEN=TOKEN
// [MIDICCIO_ICLOUD_ENVIRONMENT=...] [MIDICCIO_ICLOUD_CALLBACK_URL=...]` writes
// BuiltInICloudApp.generated.swift beside this file (four constants; not in git) and
// compiles with -DMIDICCIO_ICLOUD_BUILT_IN. Any other build has none.

#if MIDICCIO_ICLOUD_BUILT_IN
extension ICloudSignInSettings {
    /// The values built into this binary.
    public static let builtIn: BuiltIn? = BuiltIn(
        container: builtInICloudContainer, apiToken: builtInICloudAPIToken, environment: builtInICloudEnvironment,
        callbackURL: builtInICloudCallbackURL)
}
#else
extension ICloudSignInSettings {
    /// The values built into this binary: none in this build.
    public static let builtIn: BuiltIn? = nil
}
#endif
