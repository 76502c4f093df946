import TemperaCore

/// One way the editor takes keys: the help overlay, a question waiting for its answer, the file or kit
/// chooser, the `:` line (and the pattern and name editors on it), the Pads tab's keyboard, the keys that stay
/// global everywhere, and the key map's contexts (the timeline, the tab area and each tab). The dispatcher only
/// routes: a key goes to each mode in turn until one takes it.
protocol InputMode: Sendable {
    /// Handles one key; false when the mode does not take it now (the next mode gets it).
    func handle(_ key: Key, _ d: Dispatcher) -> Bool
}

enum InputModes {
    /// Every mode, most modal first.
    static let all: [any InputMode] = [HelpMode(), QuestionMode(), PickerMode(), PromptMode(), PadsMode(),
                                       AlwaysGlobalMode(), KeyMapMode()]
}

/// The `?` overlay: arrows and pages scroll it, any other key closes it.
struct HelpMode: InputMode {
    func handle(_ key: Key, _ d: Dispatcher) -> Bool {
        guard let offset = d.helpOffset else { return false }
        let page = max(1, d.height - 4)
        switch key.name {
        case "up": d.helpOffset = max(0, offset - 1)
        case "down": d.helpOffset = offset + 1
        case "pgup": d.helpOffset = max(0, offset - page)
        case "pgdn", "space": d.helpOffset = offset + page
        default: d.helpOffset = nil
        }
        return true
    }
}

/// A question on the status line (save? overwrite?): the key is its answer.
struct QuestionMode: InputMode {
    func handle(_ key: Key, _ d: Dispatcher) -> Bool {
        guard let q = d.question else { return false }
        d.answer(q, key)
        return true
    }
}

/// The file or kit chooser takes every key.
struct PickerMode: InputMode {
    func handle(_ key: Key, _ d: Dispatcher) -> Bool {
        guard d.picker != nil else { return false }
        d.handlePicker(key)
        return true
    }
}

/// The line at the bottom: its own keys (the `prompt` context), and characters typed into it.
struct PromptMode: InputMode {
    func handle(_ key: Key, _ d: Dispatcher) -> Bool {
        guard d.prompt != nil else { return false }
        if let action = d.keyMap.action(for: key, in: .prompt) {
            d.perform(action)
        } else if let c = key.character {
            if d.view.messageIsError { d.say("") }
            d.prompt?.insert(c)
            d.syncPrompt()
        }
        return true
    }
}

/// The Pads tab plays with a whole block of the keyboard (q among them): its own keys come first there.
struct PadsMode: InputMode {
    func handle(_ key: Key, _ d: Dispatcher) -> Bool {
        guard d.contexts.first == .pads, let action = d.keyMap.action(for: key, in: .pads) else { return false }
        d.perform(action)
        return true
    }
}

/// Keys that mean the same wherever the focus is (renaming, tabs, help, quit, the file keys).
struct AlwaysGlobalMode: InputMode {
    func handle(_ key: Key, _ d: Dispatcher) -> Bool {
        guard let global = d.keyMap.action(for: key, in: .global), global.verb.isAlwaysGlobal else { return false }
        d.perform(global)
        return true
    }
}

/// The key map's contexts in force (the timeline, the tab area, each tab, then global).
struct KeyMapMode: InputMode {
    func handle(_ key: Key, _ d: Dispatcher) -> Bool {
        if let action = d.keyMap.action(for: key, in: d.contexts) {
            d.perform(action)
        } else {
            d.say("\(KeyMap.label(key)) is not bound (? lists the keys)")
        }
        return true
    }
}
