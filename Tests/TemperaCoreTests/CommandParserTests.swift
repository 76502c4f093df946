import XCTest
@testable import TemperaCore

final class CommandParserTests: XCTestCase {
    func parse(_ text: String) throws -> Command? { try CommandParser.parse(text) }

    func error(_ text: String, line: Int? = nil) -> CommandError? {
        do {
            _ = try CommandParser.parse(text, line: line)
            return nil
        } catch {
            return error as? CommandError
        }
    }

    func code(_ text: String) -> PatternCode { try! PatternParser.parse(text) }

    func testBlankAndCommentLinesAreNothing() throws {
        XCTAssertNil(try parse(""))
        XCTAssertNil(try parse("   \t "))
        XCTAssertNil(try parse("# a comment"))
        XCTAssertNil(try parse("   # indented comment"))
        XCTAssertEqual(try parse("tempo 2 # faster"), .tempo(2))
    }

    func testTrackForms() throws {
        XCTAssertEqual(try parse("track add"), .trackAdd(name: nil))
        XCTAssertEqual(try parse("track add bongo"), .trackAdd(name: "bongo"))
        XCTAssertEqual(try parse("track add \"low \\\"tom\\\"\""), .trackAdd(name: "low \"tom\""))
        XCTAssertEqual(try parse("track 3"), .trackSelect(3))
        XCTAssertEqual(error("track 0"), CommandError("track must be a whole number from 1, not 0", column: 7))
        XCTAssertEqual(error("track 1.5"), CommandError("track must be a whole number from 1, not 1.5", column: 7))
        XCTAssertEqual(error("track 9223372036854775808"),
                       CommandError("track must be a whole number from 1, not 9.223372036854776e+18", column: 7))
        XCTAssertEqual(error("track add low tom"),
                       CommandError("unexpected 'tom': quote a name with spaces, as in track add \"low tom\"", column: 15))
        XCTAssertEqual(try parse("\u{FEFF}track 2"), .trackSelect(2))
    }

    func testTrackSettingForms() throws {
        XCTAssertEqual(try parse("track mute"), .trackMute(track: nil, on: nil))
        XCTAssertEqual(try parse("track mute on"), .trackMute(track: nil, on: true))
        XCTAssertEqual(try parse("track 3 mute off"), .trackMute(track: 3, on: false))
        XCTAssertEqual(try parse("track solo"), .trackSolo(track: nil, on: nil))
        XCTAssertEqual(try parse("track 2 solo on"), .trackSolo(track: 2, on: true))
        XCTAssertEqual(try parse("track gain 0.5"), .trackGain(track: nil, gain: 0.5))
        XCTAssertEqual(try parse("track gain 1/3"), .trackGain(track: nil, gain: 1.0 / 3))
        XCTAssertEqual(try parse("track 4 gain 4"), .trackGain(track: 4, gain: 4))
        XCTAssertEqual(try parse("track gain 0"), .trackGain(track: nil, gain: 0))
        XCTAssertEqual(try parse("track gain 0dB"), .trackGain(track: nil, gain: 1))
        XCTAssertEqual(try parse("track gain -20dB"), .trackGain(track: nil, gain: 0.1))
        XCTAssertEqual(try parse("track gain -6 dB"), .trackGain(track: nil, gain: pow(10, -6.0 / 20)))
        XCTAssertEqual(try parse("track 2 gain (-3-3)db"), .trackGain(track: 2, gain: pow(10, -6.0 / 20)))
        XCTAssertEqual(try parse("track name snare"), .trackName(track: nil, name: "snare"))
        XCTAssertEqual(try parse("track 2 name \"low tom\""), .trackName(track: 2, name: "low tom"))
        XCTAssertEqual(try parse("track 2"), .trackSelect(2), "a number alone still makes the track current")
    }

    func testTrackSettingErrorsNameTheColumn() {
        XCTAssertEqual(error("track gain 9"), CommandError("track gain: 9 is out of range (0-4)", column: 12))
        XCTAssertEqual(error("track 2 gain -1"), CommandError("track gain: -1 is out of range (0-4)", column: 14))
        XCTAssertEqual(error("track gain 13dB"),
                       CommandError("track gain: 13dB is out of range (0-4, at most +12.04dB)", column: 12))
        XCTAssertEqual(error("track gain 1/0"), CommandError("track gain: division by zero", column: 13))
        XCTAssertEqual(error("track gain"), CommandError("missing G (track [N] gain G | track [N] gain GdB)", column: 12))
        XCTAssertEqual(error("track gain 1 2"),
                       CommandError("unexpected '2' (track [N] gain G | track [N] gain GdB)", column: 14))
        XCTAssertEqual(error("track mute maybe"),
                       CommandError("expected on or off, not 'maybe' (track [N] mute [on|off])", column: 12))
        XCTAssertEqual(error("track 2 solo on off"), CommandError("unexpected 'off' (track [N] solo [on|off])", column: 17))
        XCTAssertEqual(error("track mutee"), CommandError("unknown track setting 'mutee' (did you mean 'mute'?)", column: 7))
        XCTAssertEqual(error("track 3 gian 1"), CommandError("unknown track setting 'gian' (did you mean 'gain'?)", column: 9))
        XCTAssertEqual(error("track 0 mute"), CommandError("track must be a whole number from 1, not 0", column: 7))
        XCTAssertEqual(error("track name"), CommandError("missing NAME (track [N] name NAME)", column: 12))
        XCTAssertEqual(error("track name low tom"),
                       CommandError("unexpected 'tom': quote a name with spaces, as in track name \"low tom\"", column: 16))
        XCTAssertEqual(error("track name \"\""), CommandError("track name: the name is empty", column: 12))
        XCTAssertEqual(error("track name \"a\tb\""),
                       CommandError("track name: a name cannot hold control characters", column: 12))
        XCTAssertEqual(error("track name a=b"), CommandError("unexpected 'a=b': quote a name with '=' in it", column: 12))
    }

    func testTransportForms() throws {
        XCTAssertEqual(try parse("length 4"), .length(4))
        XCTAssertEqual(try parse("length 2*sqrt(2)"), .length(2 * 2.0.squareRoot()))
        XCTAssertEqual(try parse("loop 0.5 3/2"), .loopRange(0.5, 1.5))
        XCTAssertEqual(try parse("loop on"), .loop(on: true))
        XCTAssertEqual(try parse("loop off"), .loop(on: false))
        XCTAssertEqual(try parse("tempo 1.25"), .tempo(1.25))
        XCTAssertEqual(try parse("volume 0.5"), .volume(0.5))
        XCTAssertEqual(error("loop 2 1"), CommandError("the loop must end after it starts (2)", column: 8))
        XCTAssertEqual(error("tempo 0"), CommandError("tempo must be from 0.05 to 20, not 0", column: 7))
        XCTAssertEqual(error("volume 1.5"), CommandError("volume must be from 0 to 1, not 1.5", column: 8))
        XCTAssertEqual(error("length -1"), CommandError("length must be greater than 0 and at most 10000000, not -1", column: 8))
        XCTAssertEqual(error("length"), CommandError("missing TIME (length TIME)", column: 8))
    }

    func testExpressionErrorsPointIntoTheLine() {
        XCTAssertEqual(error("cursor 1/0"), CommandError("cursor: division by zero", column: 9))
        XCTAssertEqual(error("marker add sqrt(2"), CommandError("time: unbalanced parenthesis: '(' at column 5 is never closed", column: 16))
        XCTAssertEqual(error("tempo 1 + 1/3"),
                       CommandError("unexpected '+': write an expression without spaces or in parentheses (tempo X)", column: 9))
        XCTAssertEqual(try parse("tempo (1 + 1/4)"), .tempo(1.25))
    }

    func testSlotForms() throws {
        XCTAssertEqual(try parse("slot 3 file=kit/rim.wav gain=0.5 mode=gate attack=2 release=80"),
                       .slot(3, .init(file: "kit/rim.wav", gain: 0.5, mode: .gate, attack: 2, release: 80)))
        XCTAssertEqual(try parse("slot 16 note=64 file=\"my kit/bell.wav\""),
                       .slot(16, .init(file: "my kit/bell.wav", note: 64)))
        XCTAssertEqual(try parse("slot 1 mode=oneshot decay=150 name=boom"),
                       .slot(1, .init(mode: .oneShot, decay: 150, name: "boom")))
        XCTAssertEqual(error("slot 17 file=a.wav"), CommandError("slot must be a whole number from 1 to 16, not 17", column: 6))
        XCTAssertEqual(error("slot 2 note=128"), CommandError("note must be a whole number from 0 to 127, not 128", column: 13))
        XCTAssertEqual(error("slot 2 mode=loop"), CommandError("mode must be oneshot or gate, not 'loop'", column: 13))
        XCTAssertEqual(error("slot 2 pitch=3").map(\.column), 8)
        XCTAssertEqual(error("slot 2 gain=1 gain=2"), CommandError("'gain' is given twice", column: 15))
        XCTAssertEqual(error("slot 2")?.message.hasPrefix("missing settings"), true)
    }

    func testMarkerAndPulse() throws {
        XCTAssertEqual(try parse("cursor 3/8"), .cursor(0.375))
        XCTAssertEqual(try parse("marker add 0.25"), .markerAdd(time: 0.25, amp: nil))
        XCTAssertEqual(try parse("marker add sqrt(2)/4 amp=0.7"), .markerAdd(time: 2.0.squareRoot() / 4, amp: 0.7))
        XCTAssertEqual(try parse("pulse period=1/8 count=16"), .pulse(period: 0.125, count: 16, start: nil, amp: nil))
        XCTAssertEqual(try parse("pulse count=5 period=sqrt(2)/4 start=1 amp=0.5"),
                       .pulse(period: 2.0.squareRoot() / 4, count: 5, start: 1, amp: 0.5))
        XCTAssertEqual(error("marker add 1 amp=3"), CommandError("amp must be from 0 to 1, not 3", column: 18))
        XCTAssertEqual(error("marker add -1"), CommandError("time must be from 0 to 10000000, not -1", column: 12))
        XCTAssertEqual(error("length 1e8"), CommandError("length must be greater than 0 and at most 10000000, not 100000000", column: 8))
        XCTAssertEqual(error("pulse count=4"), CommandError("missing period= (pulse period=TIME count=N [start=TIME] [amp=A])", column: 15))
        XCTAssertEqual(error("pulse period=0 count=4"), CommandError("period must be greater than 0 and at most 10000000, not 0", column: 14))
    }

    func testModesAndClips() throws {
        XCTAssertEqual(try parse("mode clip on"), .clipMode(true))
        XCTAssertEqual(try parse("mode clip off"), .clipMode(false))
        XCTAssertEqual(try parse("snap off"), .snap(false))
        XCTAssertEqual(try parse("clip 7"), .chooseClip(.clip(7)))
        XCTAssertEqual(try parse("clip +"), .chooseClip(.hold))
        XCTAssertEqual(try parse("clip -"), .chooseClip(.rest))
        XCTAssertEqual(try parse("clip ?"), .chooseClip(.random))
        XCTAssertEqual(error("clip 17"), CommandError("unknown clip '17' (clips are 1-16 or 0!@#$%^, + hold, - rest, ? random)", column: 6))
        XCTAssertEqual(try parse("clip @"), .chooseClip(.clip(12)))
        XCTAssertEqual(error("snap maybe"), CommandError("expected on or off, not 'maybe' (snap on|off)", column: 6))
        XCTAssertEqual(error("mode grid on"), CommandError("expected 'clip', not 'grid' (mode clip on|off)", column: 6))
    }

    func testDrawTypeAndFill() throws {
        XCTAssertEqual(try parse("draw"), .draw(amp: nil))
        XCTAssertEqual(try parse("draw amp=0.3"), .draw(amp: 0.3))
        XCTAssertEqual(try parse("draw group 4"), .drawGroup(4))
        XCTAssertEqual(try parse("type \"1 2 3\""), .type(code("1 2 3")))
        XCTAssertEqual(try parse("fill \"1x2 - 3 +x2\""), .fill(code("1x2 - 3 +x2")))
        XCTAssertEqual(try parse("fill (1 - 2)x3  # unquoted to the end"), .fill(code("(1 - 2)x3")))
    }

    func testPatternErrorsPointIntoTheLine() {
        XCTAssertEqual(error("fill \"1 2 17\""), CommandError("unknown clip '17' (clips are 1-16)", column: 11))
        XCTAssertEqual(error("fill 1 2 17"), CommandError("unknown clip '17' (clips are 1-16)", column: 10))
        XCTAssertEqual(error("type \"(1 2\""), CommandError("unbalanced parenthesis: '(' is never closed", column: 7))
        XCTAssertEqual(error("fill \"\\\"1\""), CommandError("unknown clip '\"1' (1-16, -, +, ? or .)", column: 8))
        XCTAssertEqual(error("fill"), CommandError("missing CODE (fill \"CODE\")", column: 6))
        XCTAssertEqual(error("fill \"1 2"), CommandError("unterminated string: '\"' is never closed", column: 6))
    }

    func testSelectForms() throws {
        XCTAssertEqual(try parse("select none"), .select(.init(.none)))
        XCTAssertEqual(try parse("select all tracks=all"), .select(.init(.all, allTracks: true)))
        XCTAssertEqual(try parse("select left add"), .select(.init(.left, add: true)))
        XCTAssertEqual(try parse("select right tracks=all add"), .select(.init(.right, allTracks: true, add: true)))
        XCTAssertEqual(try parse("select at 1/3"), .select(.init(.at(1.0 / 3))))
        XCTAssertEqual(try parse("select range 0.5 1 add"), .select(.init(.range(0.5, 1), add: true)))
        XCTAssertEqual(try parse("select pattern \"+ -x2\""), .select(.init(.pattern(code("+ -x2")))))
        XCTAssertEqual(try parse("select pattern + -x2 add"), .select(.init(.pattern(code("+ -x2")), add: true)))
        XCTAssertEqual(error("select every"), CommandError("unknown selection 'every' (select none|all|left|right | at TIME | range A B | pattern \"CODE\" [tracks=all] [add])", column: 8))
        XCTAssertEqual(error("select alll"), CommandError("unknown selection 'alll' (did you mean 'all'?)", column: 8))
        XCTAssertEqual(error("select range 2 1"), CommandError("the range must not end before it starts (2)", column: 16))
        XCTAssertEqual(error("select all tracks=some"), CommandError("tracks must be all or current, not 'some'", column: 19))
        XCTAssertEqual(error("select at"), CommandError("missing TIME (select at TIME)", column: 11))
    }

    func testEditForms() throws {
        XCTAssertEqual(try parse("shift -1/16"), .shift(-0.0625))
        XCTAssertEqual(try parse("scale 2"), .scale(factor: 2, handle: .last))
        XCTAssertEqual(try parse("scale 1/2 handle=first"), .scale(factor: 0.5, handle: .first))
        XCTAssertEqual(try parse("scale handle=2 to=0.3"), .scaleHandle(k: 2, to: 0.3))
        XCTAssertEqual(try parse("scale to=0.3 handle=2"), .scaleHandle(k: 2, to: 0.3))
        XCTAssertEqual(try parse("subdivide 3"), .subdivide(3))
        XCTAssertEqual(try parse("rotate"), .rotate)
        XCTAssertEqual(try parse("reverse"), .reverse)
        XCTAssertEqual(try parse("delete"), .delete)
        XCTAssertEqual(try parse("group store 2"), .groupStore(2))
        XCTAssertEqual(try parse("group stamp 2"), .groupStamp(2, times: 1))
        XCTAssertEqual(try parse("group stamp 2 times=4"), .groupStamp(2, times: 4))
        XCTAssertEqual(try parse("undo"), .undo(1))
        XCTAssertEqual(try parse("undo 5"), .undo(5))
        XCTAssertEqual(try parse("redo 2"), .redo(2))
        XCTAssertEqual(try parse("save"), .save(nil))
        XCTAssertEqual(try parse("save \"my song.tempera\""), .save("my song.tempera"))
        XCTAssertEqual(error("scale 0"), CommandError("factor must be greater than 0, not 0", column: 7))
        XCTAssertEqual(error("scale 2 handle=middle"), CommandError("handle must be first or last here, not 'middle' (scale FACTOR [handle=first|last] | scale handle=K to=TIME)", column: 16))
        XCTAssertEqual(error("scale handle=2"), CommandError("missing to= (scale handle=K to=TIME)", column: 16))
        XCTAssertEqual(error("subdivide 0"), CommandError("subdivide must be a whole number from 1 to 10000, not 0", column: 11))
        XCTAssertEqual(error("rotate 2"), CommandError("unexpected '2' (rotate)", column: 8))
        XCTAssertEqual(error("group store 17"), CommandError("group must be a whole number from 1 to 16, not 17", column: 13))
        XCTAssertEqual(error("group paste 1"), CommandError("expected store, stamp, edit or done, not 'paste' (group store N | group stamp N [times=K] | group edit N | group done)", column: 7))
        XCTAssertEqual(error("undo 0"), CommandError("K must be a whole number from 1, not 0", column: 6))
    }

    func testTemperDefine() throws {
        XCTAssertEqual(try parse("temper span=2 top=7:0,2,4 bottom=5:all"),
                       .temperDefine(span: 2, top: 7, topBeats: .list([0, 2, 4]), bottom: 5, bottomBeats: .all,
                                     map: nil, slider: nil))
        XCTAssertEqual(try parse("temper span=1 top=3:euclid(2) bottom=2 s=0.5"),
                       .temperDefine(span: 1, top: 3, topBeats: .euclid(k: 2, rotation: 0), bottom: 2,
                                     bottomBeats: .all, map: nil, slider: 0.5))
        XCTAssertEqual(try parse("temper span=2 top=8:euclid(3,1) bottom=5:euclid( 3, 2 ) map=0-0,3-1,6-4 s=-0.5"),
                       .temperDefine(span: 2, top: 8, topBeats: .euclid(k: 3, rotation: 1), bottom: 5,
                                     bottomBeats: .euclid(k: 3, rotation: 2),
                                     map: [.init(top: 0, bottom: 0), .init(top: 3, bottom: 1), .init(top: 6, bottom: 4)],
                                     slider: -0.5))
        XCTAssertEqual(try parse("temper span=1 top=7:4,0,2 bottom=5:all"),
                       .temperDefine(span: 1, top: 7, topBeats: .list([0, 2, 4]), bottom: 5, bottomBeats: .all,
                                     map: nil, slider: nil))
    }

    func testTemperDefineErrors() {
        XCTAssertEqual(error("temper span=2 top=7:0,9 bottom=5"), CommandError("beat must be a whole number from 0 to 6, not 9", column: 23))
        XCTAssertEqual(error("temper span=2 top=7:euclid(8) bottom=5"), CommandError("K must be a whole number from 0 to 7, not 8", column: 28))
        XCTAssertEqual(error("temper span=2 top=7 bottom=5 map=0-5"), CommandError("bottom beat must be a whole number from 0 to 4, not 5", column: 36))
        XCTAssertEqual(error("temper span=2 top=7 bottom=5 map=0:5"), CommandError("a mapping is I-J (top beat I to bottom beat J), not '0:5'", column: 34))
        XCTAssertEqual(error("temper top=7 bottom=5"), CommandError("missing span= (temper span=TIME top=A:BEATS bottom=B:BEATS [map=I-J,...] [s=X])", column: 23))
        XCTAssertEqual(error("temper span=2 top=0 bottom=5"), CommandError("top's subdivision must be a whole number from 1 to 128, not 0", column: 19))
        XCTAssertEqual(error("temper span=2 top=7:1,1 bottom=5"), CommandError("beat 1 is chosen twice", column: 23))
    }

    func testTemperVerbs() throws {
        XCTAssertEqual(try parse("temper slider 0.25"), .temperSlider(0.25))
        XCTAssertEqual(try parse("temper slider -1/2"), .temperSlider(-0.5))
        XCTAssertEqual(try parse("temper stamp"), .temperStamp(times: 1))
        XCTAssertEqual(try parse("temper stamp times=4"), .temperStamp(times: 4))
        XCTAssertEqual(try parse("temper group 3"), .temperGroup(3))
        XCTAssertEqual(try parse("temper apply"), .temperApply)
        XCTAssertEqual(try parse("temper morph times=8 from=0 to=1"), .temperMorph(times: 8, from: 0, to: 1))
        XCTAssertEqual(try parse("temper preset tigrigna"), .temperPreset("tigrigna"))
        XCTAssertEqual(try parse("temper preset five-seven"), .temperPreset("five-seven"))
        XCTAssertEqual(error("temper preset waltz"), CommandError("unknown preset 'waltz' (temper preset swing|tigrigna|five-seven)", column: 15))
        XCTAssertEqual(error("temper slide 1"), CommandError("unknown designer command 'slide' (did you mean 'slider'?)", column: 8))
        XCTAssertEqual(error("temper morph times=8 from=0"), CommandError("missing to= (temper morph times=K from=S0 to=S1)", column: 29))
    }

    func testUnknownCommandSuggestsTheNearestName() {
        XCTAssertEqual(error("tempp 2"), CommandError("unknown command 'tempp' (did you mean 'tempo'?)", column: 1))
        XCTAssertEqual(error("  frobnicate"), CommandError("unknown command 'frobnicate'", column: 3))
        XCTAssertEqual(error("\"fill\" 1"), CommandError("a command starts with its name, not 'fill'", column: 1))
    }

    func testErrorsCarryTheLineWhenGiven() {
        let e = error("tempo 0", line: 7)
        XCTAssertEqual(e?.line, 7)
        XCTAssertEqual(e?.description, "line 7, column 7: tempo must be from 0.05 to 20, not 0")
    }

    func testParseScriptSkipsBlankLinesAndNumbersCommandsByLine() throws {
        let script = "# a rhythm\ntrack 1\n\nfill \"1 - 2\"\r\n  # done\ntempo 2\n"
        let commands = try CommandParser.parseScript(script)
        XCTAssertEqual(commands.map(\.line), [2, 4, 6])
        XCTAssertEqual(commands.map(\.command), [.trackSelect(1), .fill(code("1 - 2")), .tempo(2)])
    }

    func testParseScriptReportsTheFirstBadLineAndColumn() {
        XCTAssertThrowsError(try CommandParser.parseScript("track 1\nfill 1 2 99\ntempo 0\n")) { error in
            XCTAssertEqual(error as? CommandError, CommandError("unknown clip '99' (clips are 1-16)", line: 2, column: 10))
        }
    }

    func testEveryCommandReadsBackFromItsText() throws {
        let commands: [Command] = [
            .trackAdd(name: nil), .trackAdd(name: "low \"tom\" #2"), .trackSelect(2),
            .trackMute(track: nil, on: nil), .trackMute(track: 1, on: true), .trackMute(track: nil, on: false),
            .trackSolo(track: 12, on: nil), .trackSolo(track: nil, on: true), .trackSolo(track: 2, on: false),
            .trackGain(track: nil, gain: pow(10, -6.0 / 20)), .trackGain(track: 3, gain: 0), .trackGain(track: nil, gain: 4),
            .trackName(track: nil, name: "low \"tom\" = #2"), .trackName(track: 5, name: "mute"), .length(2.0.squareRoot()),
            .loopRange(0.5, 1.0 / 3 + 1), .loop(on: true), .loop(on: false), .tempo(1.0 / 3), .volume(0.8),
            .slot(4, .init(file: "my kit/a=b.wav", note: 61, gain: 0.5, mode: .gate, attack: 1.5, decay: 30,
                           release: 80, name: "")),
            .slot(1, .init(note: 0)), .cursor(1e-7), .markerAdd(time: 2.0.squareRoot() / 4, amp: nil),
            .markerAdd(time: 0, amp: 0.3), .pulse(period: 0.1, count: 7, start: nil, amp: nil),
            .pulse(period: 1.0 / 7, count: 7, start: 0.25, amp: 1), .clipMode(true), .clipMode(false), .snap(true),
            .snap(false), .chooseClip(.clip(16)), .chooseClip(.hold), .chooseClip(.rest), .chooseClip(.random),
            .draw(amp: nil), .draw(amp: 0.45), .drawGroup(16), .type(code("1 2 3")), .fill(code("(1 -)x2 ?x3")),
            .select(.init(.none)), .select(.init(.all, allTracks: true)), .select(.init(.left, add: true)),
            .select(.init(.right, allTracks: true, add: true)), .select(.init(.at(0.1 + 0.2))),
            .select(.init(.range(0, 2.0 / 3))), .select(.init(.pattern(code("+ -x2")), add: true)),
            .shift(-1.0 / 16), .scale(factor: 1.5, handle: .last), .scale(factor: 0.5, handle: .first),
            .scaleHandle(k: 3, to: 0.7), .subdivide(5), .rotate, .reverse, .delete, .groupStore(1),
            .groupStamp(2, times: 1), .groupStamp(3, times: 8), .undo(1), .undo(40), .redo(1), .redo(2),
            .save(nil), .save("songs/a song.tempera"),
            .temperDefine(span: 2, top: 7, topBeats: .list([0, 2, 4]), bottom: 5, bottomBeats: .all, map: nil,
                          slider: nil),
            .temperDefine(span: 1.5, top: 8, topBeats: .euclid(k: 3, rotation: 2), bottom: 3,
                          bottomBeats: .euclid(k: 3, rotation: 0), map: [.init(top: 0, bottom: 0), .init(top: 3, bottom: 2)],
                          slider: -0.25),
            .temperSlider(0.5), .temperStamp(times: 1), .temperStamp(times: 3), .temperGroup(9),
            .temperApply, .temperMorph(times: 4, from: 0, to: 1.25), .temperPreset("swing"),
        ]
        for command in commands {
            XCTAssertEqual(try parse(command.text), command, command.text)
        }
        XCTAssertEqual(Command.markerAdd(time: 2.0.squareRoot() / 4, amp: 0.5).text, "marker add 0.3535533905932738 amp=0.5")
        XCTAssertEqual(Command.fill(code("1 - 2")).text, "fill \"1 - 2\"")
        XCTAssertEqual(Command.trackMute(track: nil, on: nil).text, "track mute")
        XCTAssertEqual(Command.trackSolo(track: 3, on: true).text, "track 3 solo on")
        XCTAssertEqual(Command.trackGain(track: 2, gain: 0.5).text, "track 2 gain 0.5")
        XCTAssertEqual(Command.trackName(track: nil, name: "low tom").text, "track name \"low tom\"")
    }

    /// Random lines built from the track forms' words: each reads or fails with a column inside the line, and
    /// whatever reads prints back to itself.
    func testRandomTrackLinesReadBackOrFailInsideTheLine() {
        var g = CommandFuzzTests.Generator(state: 2026)
        let pieces = ["track", "track", " ", " ", " ", "mute", "solo", "gain", "name", "add", "on", "off", "1", "3",
                      "0", "-6", "dB", "db", "1/3", "4.5", "\"", "=", "(", ")", "x", "\t", "-", "é", "sqrt(2)"]
        var read = 0
        for _ in 0..<3_000 {
            let line = "track " + (0..<Int(g.next() % 6)).map { _ in g.pick(pieces) }.joined()
            do {
                if let command = try CommandParser.parse(line) {
                    XCTAssertEqual(try CommandParser.parse(command.text), command, line)
                    read += 1
                }
            } catch let error as CommandError {
                XCTAssertTrue((1...(line.unicodeScalars.count + 2)).contains(error.column ?? 0), "\(line): \(error)")
                XCTAssertFalse(error.message.contains("\n"), line)
            } catch {
                XCTFail("\(line): \(error)")
            }
        }
        XCTAssertGreaterThan(read, 100, "valid lines come up often enough to test the round trip")
    }
}
