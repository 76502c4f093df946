import Foundation
import TemperaNet
import TemperaTestSupport
import XCTest

extension XCTestCase {
    /// Connects `p` to its host, retrying while the host starts, and waits for the document too: it follows the
    /// welcome in parts, so a copy read right after the welcome may have no track yet.
    func join(_ p: Participant) {
        let end = Date().addingTimeInterval(10)
        while Date() < end {
            if (try? p.connect()) != nil, waitUntil(3, { p.sync { $0.connected && $0.seq >= 0 } }) { return }
            usleep(20_000)
        }
        XCTFail("\(p.name) could not join")
    }
}
