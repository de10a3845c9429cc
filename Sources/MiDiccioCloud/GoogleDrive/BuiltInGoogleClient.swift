// The OAuth client built into this binary, if any.
//
// `make build MIDICCIO_GDRIVE_CLIENT_ID=ID [MIDICCIO_GDRIVE_CLIENT_SECRET=SECRET]` writes
// BuiltInGoogleClient.generated.swift beside this file (two constants; not in git) and
// compiles with -DMIDICCIO_GDRIVE_BUILT_IN_CLIENT. Any other build has none.

#if MIDICCIO_GDRIVE_BUILT_IN_CLIENT
extension GoogleOAuthClient {
    /// The client built into this binary.
    public static let builtIn = GoogleOAuthClient(id: builtInGoogleClientID, secret: builtInGoogleClientSecret, origin: .builtIn)
}
#else
extension GoogleOAuthClient {
    /// The client built into this binary: none in this build.
    public static let builtIn: GoogleOAuthClient? = nil
}
#endif
