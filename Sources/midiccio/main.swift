import MiDiccioCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

exit(Tool.run(Array(CommandLine.arguments.dropFirst())))
