import Foundation
import TemperaCore
import TemperaXML

/// Reading Hydrogen's XML by element name, whatever namespace a file declares (newer files put every element in
/// `http://www.hydrogen-music.org/drumkit`, older ones in none), so the same code reads both.
enum HydrogenXML {
    typealias Element = XMLTree.Element

    /// Parses a file into its root element; one line on failure, naming the file.
    static func root(of path: String, what: String) throws -> Element {
        guard FileManager.default.isReadableFile(atPath: path) else { throw KitError("\(what): cannot read \(path)") }
        // libxml2 would wait for ever on a FIFO with no writer.
        if let why = RegularFile.problem(path) { throw KitError("\(what): \(path) \(why)") }
        do {
            return try XMLTree.parse(path: path)
        } catch {
            throw KitError("\(what): \(path) is not readable XML (\(error))")
        }
    }
}

extension XMLTree.Element {
    /// The trimmed text of the first child named `name`.
    func text(_ name: String) -> String? {
        element(name)?.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A child's number; nil when absent or not a number.
    func number(_ name: String) -> Double? {
        guard let t = text(name), let v = Double(t), v.isFinite else { return nil }
        return v
    }

    /// A child's number as a whole number (a fraction dropped, as Hydrogen reads it); nil when absent, not a
    /// number, or beyond a 32-bit integer, so no value converts with a trap.
    func integer(_ name: String) -> Int? {
        guard let v = number(name), abs(v) < 2_147_483_648 else { return nil }
        return Int(v)
    }
}

/// A kit or song that cannot be read: one line naming it.
public struct KitError: Error, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
