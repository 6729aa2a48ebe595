/// A value that can be dispatched through an ``EventCenter``.
///
/// Adopt `Event` on any `Sendable` type (a struct is the usual choice) and its values become
/// events: listeners receive them with their real type, so there is no `userInfo` dictionary and
/// no cast that can fail silently.
///
/// ```swift
/// struct PostWritten: Event {
///     let title: String
///     let body: String
/// }
///
/// let subscription = EventCenter.default.listen(to: PostWritten.self) { post in
///     print("new post:", post.title)
/// }
/// EventCenter.default.dispatch(PostWritten(title: "Hello", body: "First post"))
/// ```
///
/// Events are matched by their exact static type: a listener of `PostWritten` hears
/// `dispatch(PostWritten(...))` and nothing else. To hear every event of a protocol, or every
/// event at all, listen to a family: `listen(to: (any Event).self)`.
public protocol Event: Sendable {}
