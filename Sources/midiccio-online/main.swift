import MiDiccioCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Every command, the ones that go online included; `midiccio` hands these to this binary.
exit(Tool.run(Array(CommandLine.arguments.dropFirst())))
