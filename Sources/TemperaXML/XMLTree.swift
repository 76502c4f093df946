internal import CXML2
#if canImport(Glibc)
import Glibc
#endif

/// An XML file read with libxml2 into a small tree of elements.
///
/// Its own module, importing libxml2 internally and not Foundation: libxml2's headers bring the system's ICU,
/// whose declarations clash with the copy Foundation carries when both are seen by one module.
public enum XMLTree {
    /// One element: its local name (the namespace left aside), its text (for an element without child elements),
    /// its child elements.
    public final class Element: Sendable {
        public let name: String
        public let text: String
        public let children: [Element]

        init(name: String, text: String, children: [Element]) {
            self.name = name
            self.text = text
            self.children = children
        }

        /// The child elements named `name`, in order.
        public func elements(named name: String) -> [Element] { children.filter { $0.name == name } }

        /// The first child element named `name`.
        public func element(_ name: String) -> Element? { children.first { $0.name == name } }
    }

    /// A file that is not well-formed XML: libxml2's message and the line it stopped at.
    public struct ParseError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Parses a file strictly (no recovery, no network) and silently (libxml2 prints nothing).
    public static func parse(path: String) throws -> Element {
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        xmlResetLastError()
        // Some errors (a broken encoding) are printed by libxml2 itself whatever the options say: the one line of
        // error is ours to give, so they go nowhere (xmlGetLastError still has them).
        xmlSetStructuredErrorFunc(nil) { _, _ in }
        guard let doc = xmlReadFile(path, nil, options) else {
            var why = "not well-formed"
            if let e = xmlGetLastError(), let message = e.pointee.message {
                var text = String(cString: message)
                while let last = text.last, last == "\n" || last == " " { text.removeLast() }
                why = text + (e.pointee.line > 0 ? " at line \(e.pointee.line)" : "")
            }
            throw ParseError(description: why)
        }
        defer { xmlFreeDoc(doc) }
        guard let root = xmlDocGetRootElement(doc) else { throw ParseError(description: "no root element") }
        return element(root)
    }

    private static func element(_ node: UnsafeMutablePointer<xmlNode>) -> Element {
        var children: [Element] = []
        var text = ""
        var child = node.pointee.children
        while let c = child {
            switch c.pointee.type {
            case XML_ELEMENT_NODE: children.append(element(c))
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = c.pointee.content { text += String(cString: content) }
            default: break
            }
            child = c.pointee.next
        }
        let name = node.pointee.name.map { String(cString: $0) } ?? ""
        return Element(name: name, text: children.isEmpty ? text : "", children: children)
    }
}
