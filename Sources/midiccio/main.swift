import MiDiccioCLICore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

exit(Tool.runEveryday(Array(CommandLine.arguments.dropFirst())))
