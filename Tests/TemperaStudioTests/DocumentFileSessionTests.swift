import Foundation
import TemperaCore
import TemperaStudio
import XCTest

/// The document's file as every front end drives it: opening, the atomic save and its check for changes from
/// outside, the recovery files and what leaving does with them. Time is passed in, never read from a clock.
final class DocumentFileSessionTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.path + "/tempera-files-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func files(_ session: Session) -> DocumentFileSession {
        DocumentFileSession(session: session, autosave: Autosave(directory: folder + "/autosave"))
    }

    /// A saved document at `name` in the test's folder, and its file session.
    private func saved(_ name: String = "song.tempera") throws -> DocumentFileSession {
        let path = folder + "/" + name
        try DocumentFile.save(.newDocument(), to: path)
        return files(Session(document: try DocumentFile.load(path), path: path))
    }

    private func edit(_ f: DocumentFileSession, tempo: Double = 1.4) throws {
        try f.session.run(.tempo(tempo))
    }

    func testOpeningReadsAFileOrStartsANewOneOnlyInAFolderThatExists() throws {
        let path = folder + "/a.tempera"
        var doc = Document.newDocument()
        doc.transport.tempo = 0.97
        try DocumentFile.save(doc, to: path)
        guard case .opened(let opened) = try DocumentFileSession.open(path) else { return XCTFail("not opened") }
        XCTAssertEqual(opened.document.transport.tempo, 0.97)
        XCTAssertEqual(opened.path, path)

        guard case .created(let new) = try DocumentFileSession.open(folder + "/b.tempera") else { return XCTFail("not new") }
        XCTAssertEqual(new.path, folder + "/b.tempera")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/b.tempera"), "nothing written before a save")

        XCTAssertThrowsError(try DocumentFileSession.open(folder + "/nowhere/c.tempera")) { error in
            XCTAssertEqual("\(error)", "no folder \(folder)/nowhere: a new file cannot be saved there")
        }
        try Data("not a document".utf8).write(to: URL(fileURLWithPath: folder + "/bad.tempera"))
        XCTAssertThrowsError(try DocumentFileSession.open(folder + "/bad.tempera"))
    }

    func testADocumentWithoutAFileAsksForANameAndThenKeepsIt() throws {
        let f = files(Session(document: .newDocument()))
        XCTAssertEqual(try f.save(nil), .needsName)
        let path = folder + "/named.tempera"
        XCTAssertEqual(try f.save(path), .saved("saved \(path)"))
        XCTAssertEqual(f.session.path, path)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path))
    }

    func testSavingClearsTheUnsavedStateAndACopyDoesNot() throws {
        let f = try saved()
        let own = try XCTUnwrap(f.session.path)
        try edit(f)
        XCTAssertTrue(f.hasUnsavedWork)
        guard case .saved = try f.save(folder + "/copy.tempera") else { return XCTFail("no copy") }
        XCTAssertEqual(f.session.path, own, "a copy leaves the document on its own file")
        XCTAssertTrue(f.hasUnsavedWork)
        XCTAssertEqual(try DocumentFile.load(folder + "/copy.tempera").transport.tempo, 1.4)
        XCTAssertEqual(try f.save(nil), .saved("saved \(own)"))
        XCTAssertFalse(f.hasUnsavedWork)
        XCTAssertEqual(try DocumentFile.load(own).transport.tempo, 1.4)

        try edit(f, tempo: 1.5)
        guard case .saved = try f.save(folder + "/other.tempera", switching: true) else { return XCTFail("not saved") }
        XCTAssertEqual(f.session.path, folder + "/other.tempera", "save as: the new file is the document's")
        XCTAssertFalse(f.hasUnsavedWork)
    }

    func testAFileWrittenByAnotherProgramIsNotSavedOverUnlessAskedTo() throws {
        let f = try saved()
        let own = try XCTUnwrap(f.session.path)
        try edit(f)
        var theirs = Document.newDocument()
        theirs.transport.tempo = 0.61
        // Another program's atomic save: a new file in its place.
        try DocumentFile.save(theirs, to: own)
        XCTAssertEqual(try f.save(nil), .changedOnDisk(file: own))
        XCTAssertEqual(try f.save(own), .changedOnDisk(file: own), "the same file by its name")
        XCTAssertEqual(try DocumentFile.load(own).transport.tempo, 0.61, "nothing written")
        XCTAssertTrue(f.hasUnsavedWork)
        // A copy elsewhere is not the changed file.
        guard case .saved = try f.save(folder + "/elsewhere.tempera") else { return XCTFail("no copy") }
        guard case .saved = try f.save(nil, overwrite: true) else { return XCTFail("not saved") }
        XCTAssertEqual(try DocumentFile.load(own).transport.tempo, 1.4)
        XCTAssertFalse(f.session.changedOnDisk)
    }

    func testARecoveredAutosaveIsUnsavedWorkUntilSavedToItsFile() throws {
        let f = try saved()
        f.unsavedRecovery = true
        XCTAssertFalse(f.session.isModified)
        XCTAssertTrue(f.hasUnsavedWork)
        guard case .saved = try f.save(folder + "/copy.tempera") else { return XCTFail("no copy") }
        XCTAssertTrue(f.hasUnsavedWork, "a copy elsewhere does not save the recovered work into its file")
        guard case .saved = try f.save(nil) else { return XCTFail("not saved") }
        XCTAssertFalse(f.hasUnsavedWork)
        f.unsavedRecovery = true
        f.replace(Session(document: .newDocument()))
        XCTAssertFalse(f.hasUnsavedWork, "another document came in: the recovery belonged to the one before")
    }

    func testTheRecoveryFileIsWrittenOnceChangesWaitedAndRemovedOnceSaved() throws {
        let f = try saved()
        let recovery = f.autosave.file(for: f.session.path)
        XCTAssertNil(f.tick(now: 100))
        try edit(f)
        XCTAssertNil(f.tick(now: 101))
        XCTAssertNil(f.tick(now: 105.5))
        f.autosave.flush()
        XCTAssertFalse(FileManager.default.fileExists(atPath: recovery), "written five seconds after the change")
        XCTAssertNil(f.tick(now: 106.1))
        f.autosave.flush()
        XCTAssertEqual(try DocumentFile.load(recovery).transport.tempo, 1.4)
        let path = try XCTUnwrap(f.session.path)
        let restarted = files(Session(document: try DocumentFile.load(path), path: path))
        XCTAssertEqual(restarted.recoverable()?.transport.tempo, 1.4, "offered at the next start: the file lacks it")

        guard case .saved = try f.save(nil) else { return XCTFail("not saved") }
        XCTAssertNil(f.tick(now: 107))
        XCTAssertFalse(FileManager.default.fileExists(atPath: recovery), "the file holds everything again")
    }

    func testUndoingBackToTheFileRemovesTheRecoveryFile() throws {
        let f = try saved()
        let recovery = f.autosave.file(for: f.session.path)
        try edit(f)
        f.keepRecoverable()
        XCTAssertTrue(FileManager.default.fileExists(atPath: recovery))
        try f.session.run(.undo(1))
        XCTAssertNil(f.tick(now: 1))
        XCTAssertFalse(FileManager.default.fileExists(atPath: recovery))
    }

    func testLeavingKeepsTheRecoveryFileOnlyForUnsavedWorkNotDiscarded() throws {
        let f = try saved()
        let recovery = f.autosave.file(for: f.session.path)
        f.keepRecoverable()
        XCTAssertFalse(FileManager.default.fileExists(atPath: recovery), "nothing unsaved: nothing to keep")
        try edit(f)
        f.keepRecoverable()
        f.finish(discarding: false)
        XCTAssertEqual(try DocumentFile.load(recovery).transport.tempo, 1.4, "a signal keeps the work recoverable")
        f.finish(discarding: true)
        XCTAssertFalse(FileManager.default.fileExists(atPath: recovery), "discarded on purpose")
    }

    func testAHostLeavingSavesItsChangesOrKeepsARecoveryCopy() throws {
        let f = try saved()
        XCTAssertNil(try f.saveBeforeLeaving(), "nothing to save")
        try edit(f)
        XCTAssertEqual(try f.saveBeforeLeaving(), f.session.path)
        XCTAssertEqual(try DocumentFile.load(try XCTUnwrap(f.session.path)).transport.tempo, 1.4)

        let gone = folder + "/gone"
        try FileManager.default.createDirectory(atPath: gone, withIntermediateDirectories: true)
        let g = files(Session(document: .newDocument(), path: gone + "/song.tempera"))
        try edit(g)
        try FileManager.default.removeItem(atPath: gone)
        XCTAssertThrowsError(try g.saveBeforeLeaving()) { error in
            XCTAssertTrue("\(error)".hasSuffix("; a recovery copy was kept"), "\(error)")
        }
        XCTAssertEqual(try DocumentFile.load(g.autosave.file(for: g.session.path)).transport.tempo, 1.4)
    }

    func testASecondProgramOnTheDocumentIsToldAndTheClaimFollowsAnotherDocument() throws {
        let first = try saved(), second = try saved()
        XCTAssertNil(first.claim())
        XCTAssertEqual(second.claim(), "song.tempera is open in another editor too: saving asks before writing over its changes")
        XCTAssertNotEqual(first.autosave.file(for: first.session.path), second.autosave.file(for: second.session.path))
        XCTAssertNil(second.followDocument(), "the same document: the claim stays")
        try DocumentFile.save(.newDocument(), to: folder + "/other.tempera")
        second.replace(Session(document: .newDocument(), path: folder + "/other.tempera"))
        XCTAssertNil(second.followDocument(), "the other document is nobody else's")
        XCTAssertEqual(second.autosave.claimed, folder + "/other.tempera")
    }

    func testAManagedDocumentIsCreatedWithItsFolderAndTheJournalSitsBesideTheRecoveryFile() throws {
        let path = folder + "/session/client/tempera.tempera"
        let s = try DocumentFileSession.managed(at: path)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path))
        XCTAssertFalse(s.isModified)
        XCTAssertEqual(try DocumentFileSession.managed(at: path).path, path)
        let f = files(s)
        let recovery = f.autosave.file(for: path)
        XCTAssertEqual(f.journalPath, String(recovery.dropLast(".tempera".count)) + ".journal")
        XCTAssertEqual(f.baseDirectory, folder + "/session/client")
        XCTAssertNil(files(Session(document: .newDocument())).journalPath)
    }
}
