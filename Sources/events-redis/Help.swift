/// The help texts: `events-redis --help` and each command's `--help`.
enum Help {
    static let top = """
        events-redis: look after the streams and channels of the swift-events Redis bridge.

        Usage: events-redis COMMAND [ARGUMENTS] [OPTIONS]

        Commands:
          status [TYPE...]                 streams, groups, consumers, pending, lag, dead letters
          dead-letters list TYPE           the dead letters of a type, oldest first
          dead-letters show TYPE ID        one dead letter, with its event
          dead-letters replay TYPE ID...   put dead letters back on their streams
          dead-letters purge TYPE ID...    remove dead letters
          tail TYPE                        print a type's events as they are published
          check [TYPE...]                  partition layouts and groups that do not match
          help [COMMAND]                   this text, or a command's

        TYPE is an event's wire name: RemoteEvent.wireName, or an EventName's string.
        Run 'events-redis COMMAND --help' for a command's own arguments and options.

        \(options)

        \(exitStatus)
        """

    static let options = """
        Options (every command):
          --url URL                redis://[[user]:password@]host[:port][/db], rediss:// for TLS
                                   (default: $EVENTS_REDIS_URL, else redis://localhost:6379)
          --sentinel HOST:PORT[,HOST:PORT...] --master NAME
                                   the master NAME that these sentinels watch
          --cluster HOST:PORT[,HOST:PORT...]
                                   a Redis Cluster, found through these nodes
          --tls                    connect with TLS (a rediss:// URL implies it)
          --tls-ca FILE            trust the certificate authorities in FILE (PEM)
          --tls-cert FILE --tls-key FILE
                                   present this client certificate and key (PEM)
          --tls-server-name NAME   the name the server's certificate must have
          --key-prefix PREFIX      the bridge's Configuration.keyPrefix (default: events:)
          --json                   print one JSON document on standard output
          -h, --help               show help
        Credentials and the database come from the URL, also with --sentinel and --cluster.
        """

    static let exitStatus = """
        Exit status:
          0  done, and nothing wrong found
          1  found something: check found a mismatch, or a type or dead letter asked for is not there
          2  usage error: bad arguments, and nothing in Redis was changed
          3  Redis could not be reached, or answered with an error
        """

    static let status = """
        Usage: events-redis status [TYPE...] [OPTIONS]

        For each carried event type (every type under the key prefix when none is given): its
        streams (the plain stream, or its partitions), their length, the consumer groups with
        their consumers, pending entries (read, not yet acknowledged) and lag (not yet read),
        the age of the oldest pending entry, and the dead letters waiting. Pub/Sub types show
        while someone subscribes to them, with the number of subscribers.

        Exits 1 when a TYPE given is found nowhere, or when none is found at all.

        \(options)
        """

    static let deadLetters = """
        Usage: events-redis dead-letters list TYPE [--limit N] [OPTIONS]
               events-redis dead-letters show TYPE ID [OPTIONS]
               events-redis dead-letters replay TYPE (ID... | --all) [--dry-run] [OPTIONS]
               events-redis dead-letters purge TYPE (ID... | --all) [--dry-run] [OPTIONS]

        The events the bridge gave up on, kept in each stream's dead-letter stream
        (<stream>:dead), through the bridge's own dead-letter API.

          list     the oldest N dead letters of every stream of TYPE (N: --limit, default 100)
          show     one dead letter: where it came from, what failed, and its CloudEvent
          replay   put dead letters back on their streams as new entries, with the same
                   CloudEvent, and remove them from the dead letters, in one transaction
          purge    remove dead letters
          --all    every dead letter of TYPE, in place of IDs
          --dry-run  say what would be done, and change nothing

        An ID is a dead letter's own id, as list prints it. Where the letters of several
        partitions share an id, give PARTITION/ID (a bare ID they share is a usage error).
        Every ID is looked up before anything is changed: one that is not there changes
        nothing and exits 1.

        \(options)
        """

    static let tail = """
        Usage: events-redis tail TYPE [--count N] [--mode stream|pubsub] [OPTIONS]

        Prints the events of TYPE published from now on, one CloudEvents JSON document per
        line, until interrupted (SIGINT, SIGTERM), until standard output closes, or after N
        events (--count). A batch prints as its events, one per line.

        A stream type is read with XREAD after its last entry, outside every consumer group,
        so that tailing takes nothing from the bridges that consume it; every partition is
        followed. A Pub/Sub type is followed as one more subscriber. The mode is the one found
        in Redis; --mode chooses it for a type that has neither a stream nor a subscriber yet.
        Messages that are not CloudEvents are skipped, with a line on standard error. Every
        line is JSON already: --json changes nothing here.

        \(options)
        """

    static let check = """
        Usage: events-redis check [TYPE...] [--partitions N] [--group NAME] [OPTIONS]

        Finds what a bridge's own check at start reports: processes that carry a stream type
        on different numbers of partitions, and so never meet. It reads the layouts in use from
        Redis (the streams that exist, the partitions each consumer group reads) and reports
        entries waiting unread on streams a group's layout does not read, and groups that
        read where a layout in use does not publish.

          --partitions N   check against the one layout of N partitions (1: the plain stream),
                           as a bridge carrying the type on N partitions would: this also finds
                           old partitions not drained after a move to fewer
          --group NAME     only this consumer group's findings

        Exits 1 when it finds a mismatch, 0 when every layout matches.

        \(options)
        """

    static let help = """
        Usage: events-redis help [COMMAND]

        Shows the help of events-redis, or of COMMAND.
        """
}
