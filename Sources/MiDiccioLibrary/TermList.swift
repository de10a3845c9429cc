/// Terms named in a message.
package enum TermList {
    /// `terms` quoted (each cut to 40 characters), and how many more of `count` there are:
    /// “uno”, “dos” and 3 more.
    package static func named(_ terms: [String], of count: Int) -> String {
        terms.map { "\u{201C}\($0.prefix(40))\u{201D}" }.joined(separator: ", ")
            + (count > terms.count ? " and \(count - terms.count) more" : "")
    }
}
