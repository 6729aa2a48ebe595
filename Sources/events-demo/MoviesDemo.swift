import Dispatch
import Events
import Foundation

// A movie app loads its list on a background thread, decodes the JSON and broadcasts
// it; two screens (a table and a collection) update their main-actor state. With NotificationCenter
// every observer had to remember to hop to the main thread; here the handlers are @MainActor and
// the compiler checks it.

struct Movie: Codable, Sendable {
    let title: String
    let grade: Int
    let reservationRate: Double
    let userRating: Double
}

struct MovieList: Codable, Sendable {
    let order: String
    let movies: [Movie]
}

/// Broadcast when a movie list has been loaded and decoded.
struct MoviesLoaded: Event {
    let list: MovieList
}

/// Broadcast when loading starts or stops (the screen's activity indicator).
struct LoadingChanged: Event {
    let isLoading: Bool
}

/// Loads the bundled JSON on a background queue, as a network request would.
final class MovieLoader: Sendable {
    private let center: EventCenter
    private let queue = DispatchQueue(label: "demo.network")

    init(center: EventCenter) { self.center = center }

    /// Starts a load; returns once every listener has finished with the result.
    func load(timeline: Timeline) async throws -> DispatchReport {
        center.dispatch(LoadingChanged(isLoading: true), from: self)
        let data: Data = try await withCheckedThrowingContinuation { continuation in
            queue.async {
                timeline.note("background thread: reading and decoding movies.json")
                continuation.resume(with: Result { try Self.bundledJSON() })
            }
        }
        let list = try JSONDecoder().decode(MovieList.self, from: data)
        await center.dispatchAndWait(LoadingChanged(isLoading: false), from: self)
        return await center.dispatchAndWait(MoviesLoaded(list: list), from: self)
    }

    private static func bundledJSON() throws -> Data {
        guard let url = Bundle.module.url(forResource: "movies", withExtension: "json") else {
            throw CocoaError(.fileNoSuchFile)
        }
        return try Data(contentsOf: url)
    }
}

/// The table screen: main-actor state, updated by a main-actor listener it owns.
@MainActor final class MovieTableScreen {
    private(set) var rows: [String] = []
    private let timeline: Timeline

    init(center: EventCenter, timeline: Timeline) {
        self.timeline = timeline
        center.listen(to: MoviesLoaded.self, owner: self, on: .main) { screen, loaded in
            // Main-actor isolated: touching `rows` needs no hop and compiles without warnings.
            screen.rows = loaded.list.movies.map { "\($0.title) (\($0.reservationRate)%)" }
            screen.timeline.call("table screen", "reloaded \(screen.rows.count) rows on the main actor")
        }
    }
}

/// The collection screen: sorted differently, also main-actor state.
@MainActor final class MovieCollectionScreen {
    private(set) var cards: [String] = []
    private(set) var showsSpinner = false
    private let timeline: Timeline

    init(center: EventCenter, timeline: Timeline) {
        self.timeline = timeline
        center.listen(to: MoviesLoaded.self, owner: self, on: .mainOrdered) { screen, loaded in
            let byRating = loaded.list.movies.sorted { $0.userRating > $1.userRating }
            screen.cards = byRating.map { "\($0.title) ★\($0.userRating)" }
            screen.timeline.call("collection screen", "laid out \(screen.cards.count) cards, best rated first")
        }
        center.listen(to: LoadingChanged.self, owner: self, on: .mainOrdered) { screen, change in
            screen.showsSpinner = change.isLoading
            screen.timeline.call("collection screen", change.isLoading ? "spinner on" : "spinner off")
        }
    }
}

@MainActor
func runMoviesDemo() async {
    let timeline = Timeline("movies: a background load broadcast to main-actor screens")
    let center = EventFlow.center(for: "movies")
    let table = MovieTableScreen(center: center, timeline: timeline)
    let collection = MovieCollectionScreen(center: center, timeline: timeline)

    timeline.step("the user picks \"reservation rate\"; the loader fetches in the background")
    do {
        let report = try await MovieLoader(center: center).load(timeline: timeline)
        timeline.note("dispatchAndWait: \(report.received) listeners ran, \(report.failures.count) failed")
    } catch {
        timeline.note("loading failed: \(error)")
    }

    timeline.step("both screens now show the list (read on the main actor)")
    timeline.note("table, first row: \(table.rows.first ?? "-")")
    timeline.note("collection, first card: \(collection.cards.first ?? "-")")
    timeline.note("spinner showing: \(collection.showsSpinner)")
}
