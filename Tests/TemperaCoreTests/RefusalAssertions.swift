import XCTest
@testable import TemperaCore

/// What the limit tests share: the message a refusal carries, and a last line refused without changing anything.
extension XCTestCase {
    /// The message of what `body` throws.
    func message(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as CommandError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    /// Runs lines on a new document (four tracks of 16 markers over 2 s); the last must fail with `expected`
    /// and leave the document as it was before it.
    func assertLastLineFails(_ lines: [String], _ expected: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let s = Session(document: Document.newDocument())
        for l in lines.dropLast() { try s.run(line: l) }
        let before = s.document
        let steps = s.history.undoSteps.count
        XCTAssertEqual(message { try s.run(line: lines.last!) }, expected, file: file, line: line)
        XCTAssertEqual(s.document, before, "the failing command changed the document", file: file, line: line)
        XCTAssertEqual(s.history.undoSteps.count, steps, file: file, line: line)
    }
}
