// MiDiccioKit is the one library product apps use: it re-exports the core layers, so
// `import MiDiccioKit` gives the model, the library, the cloud back ends and sync.
@_exported import MiDiccioCloud
@_exported import MiDiccioLibrary
@_exported import MiDiccioModel
@_exported import MiDiccioOnline
@_exported import MiDiccioSync
