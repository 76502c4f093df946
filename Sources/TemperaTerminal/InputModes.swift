import TemperaCore

/// One way the editor takes keys: the help overlay, a question waiting for its answer, the file or kit
/// chooser, the `:` line (and the pattern and name editors on it), the timeline, and each tab of the tab area.
/// The dispatcher only routes: a key goes to each mode in turn until one takes it.
protocol InputMode: Sendable {
    /// Handles one key; false when the mode does not take it now (the next mode gets it).
    func handle(_ key: Key, _ d: Dispatcher) -> Bool
}

enum InputModes {
    /// Every mode, most modal first.
    static let all: [any InputMode] = [HelpMode(), QuestionMode(), PickerMode(), PromptMode()] + areas

    /// The areas the keys can be in: the timeline and each tab. Exactly one has the keys.
    static let areas: [any AreaMode] = [TimelineMode(), ClipsTabMode(), GroupsTabMode(), DesignerTabMode(),
                                        SongTabMode(), PadsTabMode()]

    /// The area that has the keys now.
    static func area(_ d: Dispatcher) -> any AreaMode {
        areas.first { $0.hasKeys(d) } ?? TimelineMode()
    }
}

/// The `?` overlay: arrows and pages scroll it, any other key closes it.
struct HelpMode: InputMode {
    func handle(_ key: Key, _ d: Dispatcher) -> Bool {
        guard let offset = d.view.helpOffset else { return false }
        let page = max(1, d.height - 4)
        switch key.name {
        case "up": d.view.helpOffset = max(0, offset - 1)
        case "down": d.view.helpOffset = offset + 1
        case "pgup": d.view.helpOffset = max(0, offset - page)
        case "pgdn", "space": d.view.helpOffset = offset + page
        default: d.view.helpOffset = nil
        }
        return true
    }
}

/// A question on the status line (save? overwrite?): the key is its answer.
struct QuestionMode: InputMode {
    func handle(_ key: Key, _ d: Dispatcher) -> Bool {
        guard let q = d.view.question else { return false }
        d.answer(q, key)
        return true
    }
}

/// The file or kit chooser takes every key.
struct PickerMode: InputMode {
    func handle(_ key: Key, _ d: Dispatcher) -> Bool {
        guard d.view.picker != nil else { return false }
        d.handlePicker(key)
        return true
    }
}

/// The line at the bottom: its own keys (the `prompt` context), and characters typed into it.
struct PromptMode: InputMode {
    func handle(_ key: Key, _ d: Dispatcher) -> Bool {
        guard d.view.prompt != nil else { return false }
        if let action = d.view.keyMap.action(for: key, in: .prompt) {
            d.perform(action)
        } else if let c = key.character {
            if d.view.messageIsError { d.say("") }
            d.view.prompt?.insert(c)
        }
        return true
    }
}

/// The keys of one area, the timeline or a tab: the key map's contexts are where they are bound, most specific
/// first, so a key the area binds itself wins over the same key's global meaning (the designer's `E` edits there,
/// the Clips tab's `E` lengthens the release, the Pads tab's `q` plays a pad); `global` comes last. A key bound
/// nowhere says so.
protocol AreaMode: InputMode {
    /// The area has the keys now.
    func hasKeys(_ d: Dispatcher) -> Bool
    /// Where the area's keys are bound, most specific first (`global` last).
    var contexts: [KeyMap.Context] { get }
}

extension AreaMode {
    func handle(_ key: Key, _ d: Dispatcher) -> Bool {
        guard hasKeys(d) else { return false }
        if let action = d.view.keyMap.action(for: key, in: contexts) {
            d.perform(action)
        } else {
            d.say("\(KeyMap.label(key)) is not bound (? lists the keys)")
        }
        return true
    }
}

/// The timeline: the tools, the cursor, the selection, the transport.
struct TimelineMode: AreaMode {
    func hasKeys(_ d: Dispatcher) -> Bool { d.view.focus == .timeline }
    let contexts: [KeyMap.Context] = [.timeline, .global]
}

/// A tab of the tab area while it has the keys.
protocol TabMode: AreaMode {
    var tab: Tab { get }
}

extension TabMode {
    func hasKeys(_ d: Dispatcher) -> Bool { d.view.focus == .tab && d.view.tab == tab }
}

/// The Clips tab: choosing a slot and changing its settings (`Dispatcher.slot`).
struct ClipsTabMode: TabMode {
    let tab = Tab.clips
    let contexts: [KeyMap.Context] = [.clips, .tab, .global]
}

/// The Groups tab: choosing a group slot, stamping, storing, editing and placing it (`Dispatcher.slot`).
struct GroupsTabMode: TabMode {
    let tab = Tab.groups
    let contexts: [KeyMap.Context] = [.groups, .tab, .global]
}

/// The Rhythm Designer tab: its rows, the slider, stamping (`DesignerTab.handle`).
struct DesignerTabMode: TabMode {
    let tab = Tab.designer
    let contexts: [KeyMap.Context] = [.designer, .tab, .global]
}

/// The Song tab: sections and their order (`Dispatcher.song`).
struct SongTabMode: TabMode {
    let tab = Tab.song
    let contexts: [KeyMap.Context] = [.song, .tab, .global]
}

/// The Pads tab: a block of the keyboard plays the slots (`Dispatcher.pad`), `q` among them.
struct PadsTabMode: TabMode {
    let tab = Tab.pads
    let contexts: [KeyMap.Context] = [.pads, .tab, .global]
}
