import Events

@testable import EventsRedis

struct OrderPlaced: RemoteEvent, Equatable {
    static let wireName = "com.example.shop.order-placed"
    let orderID: String
    let total: Int
}
