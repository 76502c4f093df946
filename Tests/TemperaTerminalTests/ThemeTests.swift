import Foundation
import TemperaTestSupport
import XCTest
import TemperaShipped
@testable import TemperaTerminal

/// The repository's root.
let repositoryRoot = TestPaths.packageRoot

final class ThemeTests: XCTestCase {
    func testEveryShippedThemeStylesEveryRole() throws {
        for name in Theme.shippedNames {
            let text = try String(contentsOfFile: repositoryRoot + "/Themes/\(name).theme", encoding: .utf8)
            let theme = try Theme.parse(text, name: name, file: "\(name).theme", base: { _ in nil })
            XCTAssertEqual(theme.missingRoles, [], "\(name) leaves roles unstyled")
        }
    }

    func testThemesDirectoryHoldsExactlyTheShippedThemes() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot + "/Themes")
            .filter { $0.hasSuffix(".theme") }.sorted()
        XCTAssertEqual(files, Theme.shippedNames.map { $0 + ".theme" }.sorted())
    }

    func testThemesAreAtTheTopLevelAndTheCompiledInFolderLinksThere() throws {
        let top = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot)
        for entry in ["Package.swift", "Sources", "Tests", "Themes", "Samples"] {
            XCTAssertTrue(top.contains(entry), "the top level lacks \(entry)")
        }
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(
            atPath: repositoryRoot + "/Sources/TemperaShipped/Themes"), "../../Themes")
    }

    func testCompiledInThemesAreTheFilesInThemes() throws {
        XCTAssertEqual(Set(ShippedFiles.themes.keys), Set(Theme.shippedNames))
        for name in Theme.shippedNames {
            let file = try String(contentsOfFile: repositoryRoot + "/Themes/\(name).theme", encoding: .utf8)
            XCTAssertEqual(ShippedFiles.themes[name], file, "Themes/\(name).theme")
        }
    }

    func testStyleLineReadsForegroundBackgroundAndAttributes() throws {
        let theme = try Theme.parse("marker = bright-green on default bold\ncursor = black on 214 underline reverse\n",
                                    name: "t", file: "t.theme")
        XCTAssertEqual(theme[.marker], Theme.Style(fg: Theme.Color(10), bg: .default, .bold))
        XCTAssertEqual(theme[.cursor], Theme.Style(fg: Theme.Color(0), bg: Theme.Color(214), [.underline, .reverse]))
    }

    func testAttributesAloneLeaveColoursAtTheDefault() throws {
        let theme = try Theme.parse("title = bold\nrestLabel = on red\n", name: "t", file: "t.theme")
        XCTAssertEqual(theme[.title], Theme.Style(fg: .default, bg: .default, .bold))
        XCTAssertEqual(theme[.restLabel], Theme.Style(fg: .default, bg: Theme.Color(1)))
    }

    func testUnknownRoleIsAnErrorNamingFileAndLine() {
        XCTAssertThrowsError(try Theme.parse("# c\nnormal = white\nmarkr = red\n", name: "t", file: "my.theme")) { e in
            XCTAssertEqual(String(describing: e), "my.theme:3: unknown role 'markr'")
        }
    }

    func testUnknownColourIsAnErrorNamingFileAndLine() {
        XCTAssertThrowsError(try Theme.parse("normal = purple\n", name: "t", file: "my.theme")) { e in
            XCTAssertEqual(String(describing: e), "my.theme:1: unknown colour 'purple'")
        }
        XCTAssertThrowsError(try Theme.parse("normal = 256\n", name: "t", file: "my.theme")) { e in
            XCTAssertEqual(String(describing: e), "my.theme:1: unknown colour '256'")
        }
    }

    func testLineWithoutEqualsSignIsAnError() {
        XCTAssertThrowsError(try Theme.parse("normal white\n", name: "t", file: "x")) { e in
            XCTAssertEqual(String(describing: e), "x:1: expected 'role = colour [on colour] [attributes]'")
        }
    }

    func testBaseThemeFillsRolesTheFileLeavesOut() throws {
        let theme = try Theme.parse("base = light\nmarker = red\n", name: "mine", file: "mine.theme")
        XCTAssertEqual(theme[.marker], Theme.Style(fg: Theme.Color(1)))
        XCTAssertEqual(theme[.cursor], Theme.shipped("light")![.cursor])
        XCTAssertEqual(theme.missingRoles, [])
    }

    func testAThemeNamingItsBaseOnManyLinesReadsInUnderASecond() throws {
        // A file of 5,000 `base` lines (once a 2 s input under the fuzzer) reads like a file naming it once.
        let text = String(repeating: "base = light\nbase = dark\n", count: 2_500) + "marker = red\n"
        let clock = ContinuousClock()
        var theme: Theme?
        let elapsed = try clock.measure { theme = try Theme.parse(text, name: "many", file: "many.theme") }
        XCTAssertEqual(theme?[.marker], Theme.Style(fg: Theme.Color(1)))
        XCTAssertEqual(theme?[.cursor], Theme.shipped("light")![.cursor])
        XCTAssertLessThan(elapsed, .seconds(1))
    }

    func testEightColourFallbackTakesTheNearestBasicColourAndBoldsBrightOnes() {
        XCTAssertEqual(Theme.nearestBasic(Theme.Color(196)), Theme.Color(1))   // bright red in the cube
        XCTAssertEqual(Theme.nearestBasic(Theme.Color(46)), Theme.Color(2))    // green
        XCTAssertEqual(Theme.nearestBasic(Theme.Color(21)), Theme.Color(4))    // blue
        XCTAssertEqual(Theme.nearestBasic(Theme.Color(235)), Theme.Color(0))   // dark grey
        XCTAssertEqual(Theme.nearestBasic(Theme.Color(255)), Theme.Color(7))   // near white
        XCTAssertEqual(Theme.nearestBasic(Theme.Color(12)), Theme.Color(4))    // bright blue
        let s = Theme.Style(fg: Theme.Color(10), bg: Theme.Color(236)).eightColor
        XCTAssertEqual(s, Theme.Style(fg: Theme.Color(2), bg: Theme.Color(0), .bold))
    }

    func testMonochromeReversesRolesThatSetABackground() {
        XCTAssertEqual(Theme.Style(fg: Theme.Color(0), bg: Theme.Color(214), .bold).monochrome, [.bold, .reverse])
        XCTAssertEqual(Theme.Style(fg: Theme.Color(2)).monochrome, [])
    }

    func testUserThemeOverridesAShippedOneAndKeepsItsOtherRoles() throws {
        let dir = NSTemporaryDirectory() + "tempera-theme-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let paths = ConfigPaths(config: dir, state: dir + "/state")
        try FileManager.default.createDirectory(atPath: dir + "/themes", withIntermediateDirectories: true)
        try "marker = magenta\n".write(toFile: dir + "/themes/light.theme", atomically: true, encoding: .utf8)
        let theme = try XCTUnwrap(Theme.named("light", paths: paths))
        XCTAssertEqual(theme[.marker], Theme.Style(fg: Theme.Color(5)))
        XCTAssertEqual(theme[.cursor], Theme.shipped("light")![.cursor])
        XCTAssertNil(try Theme.named("nope", paths: paths))
    }

    func testXDGVariablesPlaceConfigAndState() {
        let p = ConfigPaths(environment: ["HOME": "/home/u", "XDG_STATE_HOME": "/s", "XDG_CONFIG_HOME": "relative"])
        XCTAssertEqual(p.config, "/home/u/.config/tempera")
        XCTAssertEqual(p.state, "/s/tempera")
        XCTAssertEqual(p.keys, "/home/u/.config/tempera/keys")
    }

    func testSettingsReadTheThemeAndRejectUnknownKeys() throws {
        XCTAssertEqual(try Settings.parse("# mine\ntheme = light\n", file: "config").theme, "light")
        XCTAssertThrowsError(try Settings.parse("colour = red\n", file: "config")) { e in
            XCTAssertEqual(String(describing: e), "config:1: unknown setting 'colour' (known: theme, audio, max-sample-seconds, max-sample-mb)")
        }
    }
}
