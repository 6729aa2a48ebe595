// The bridge is built on the Redis client, and its public API speaks the client's types
// (`RedisConfiguration`, `RedisClient`, `RedisError`, ...). Re-exporting the client keeps every
// `import EventsRedis` compiling as it did when the client lived in this module, and spares a
// bridge user a second import; a user of the client alone imports `EventsRedisClient`.
@_exported public import EventsRedisClient
