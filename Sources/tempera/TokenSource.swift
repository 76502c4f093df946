import Foundation
import TemperaNet

/// Where a shared secret comes from: `--token` (visible to anyone listing processes, so for tests and a
/// private machine), `--token-file FILE` (its first line), or the environment's `TEMPERA_TOKEN`.
enum TokenSource {
    static func resolve(token: String?, file: String?) throws -> String? {
        if let token { return token }
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw CommandLineFailure.report("tempera: cannot read the token file \(file)")
            }
            let token = TokenFile.token(from: [UInt8](data))
            guard !token.isEmpty else { throw CommandLineFailure.report("tempera: the token file \(file) is empty") }
            return token
        }
        if let env = ProcessInfo.processInfo.environment["TEMPERA_TOKEN"], !env.isEmpty { return env }
        return nil
    }
}
