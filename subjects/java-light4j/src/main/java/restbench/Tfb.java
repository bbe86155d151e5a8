package restbench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import com.github.mustachejava.DefaultMustacheFactory;
import com.github.mustachejava.Mustache;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * TechEmpower's six test types (json, db, queries, fortunes, updates, cached-queries) over the
 * same HikariCP pool as /users, registered by {@link PathHandlerProvider}. Light-4J names itself
 * in a Server header on every answer (serverString in config/server.yml) and Undertow adds the
 * Date (alwaysSetDate), as TechEmpower requires. Every handler that touches the database runs on
 * Undertow's worker pool (dispatched from the IO thread, as /users is); each World row is its own
 * execution of one PreparedStatement (pgjdbc prepares it on the server after a few uses and keeps
 * it per connection). Fortunes are sorted here and rendered by Mustache (mustache.java escapes
 * {{message}} as HTML); cached-queries read a Caffeine cache filled from CachedWorld at start-up,
 * which loads a missing row from CachedWorld.
 */
public final class Tfb {
    static final String WORLD_SQL = "SELECT id, randomNumber FROM World WHERE id = ?";
    static final String FORTUNES_SQL = "SELECT id, message FROM Fortune";
    static final String UPDATE_SQL = "UPDATE World SET randomNumber = ? WHERE id = ?";
    static final String CACHED_ALL_SQL = "SELECT id, randomNumber FROM CachedWorld";
    static final String CACHED_SQL = "SELECT id, randomNumber FROM CachedWorld WHERE id = ?";
    static final String HTML = "text/html; charset=utf-8";
    static final int ROWS = 10_000;

    /** A World (or CachedWorld) row: {"id":…,"randomNumber":…}. */
    public static final class World {
        public int id;
        public int randomNumber;

        public World(int id, int randomNumber) {
            this.id = id;
            this.randomNumber = randomNumber;
        }
    }

    public static final class Fortune {
        public final int id;
        public final String message;

        public Fortune(int id, String message) {
            this.id = id;
            this.message = message;
        }
    }

    public static final class Message {
        public final String message;

        public Message(String message) {
            this.message = message;
        }
    }

    private final Database db;
    private final ObjectMapper mapper;
    private final Mustache fortunesPage =
            new DefaultMustacheFactory("templates").compile("fortunes.mustache");
    /** All 10,000 CachedWorld rows fit; a miss (the database was down at start-up) loads the row. */
    private final LoadingCache<Integer, World> cache;

    Tfb(Database db, ObjectMapper mapper) {
        this.db = db;
        this.mapper = mapper;
        this.cache = Caffeine.newBuilder().maximumSize(ROWS).build(this::cachedWorld);
    }

    /** Fills the cache from CachedWorld; false (and the cache loads rows on demand) when that fails. */
    boolean fillCache() {
        try (Connection c = db.pool.getConnection();
             PreparedStatement ps = c.prepareStatement(CACHED_ALL_SQL);
             ResultSet rs = ps.executeQuery()) {
            Map<Integer, World> rows = new HashMap<>(ROWS * 2);
            while (rs.next()) {
                rows.put(rs.getInt(1), new World(rs.getInt(1), rs.getInt(2)));
            }
            cache.putAll(rows);
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    /** Undertow's way to run blocking work: dispatch the exchange from the IO thread to a worker. */
    static HttpHandler blocking(HttpHandler h) {
        return ex -> {
            if (ex.isInIoThread()) {
                ex.dispatch(h);
            } else {
                h.handleRequest(ex);
            }
        };
    }

    /** {"message":"Hello, World!"} from an object serialized now (on the IO thread: nothing blocks). */
    void json(HttpServerExchange ex) throws IOException {
        json(ex, new Message("Hello, World!"));
    }

    void db(HttpServerExchange ex) throws IOException {
        List<World> rows;
        try {
            rows = worlds(1);
        } catch (SQLException e) {
            unavailable(ex);
            return;
        }
        json(ex, rows.get(0));
    }

    void queries(HttpServerExchange ex) throws IOException {
        List<World> rows;
        try {
            rows = worlds(count(ex, "queries"));
        } catch (SQLException e) {
            unavailable(ex);
            return;
        }
        json(ex, rows);
    }

    /** Every fortune and one added now, sorted by message here (no ORDER BY), through Mustache. */
    void fortunes(HttpServerExchange ex) {
        List<Fortune> fortunes = new ArrayList<>(16);
        try (Connection c = db.pool.getConnection();
             PreparedStatement ps = c.prepareStatement(FORTUNES_SQL);
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                fortunes.add(new Fortune(rs.getInt(1), rs.getString(2)));
            }
        } catch (SQLException e) {
            unavailable(ex);
            return;
        }
        fortunes.add(new Fortune(0, "Additional fortune added at request time."));
        fortunes.sort(Comparator.comparing(f -> f.message));
        StringWriter page = new StringWriter(2048);
        fortunesPage.execute(page, Map.of("fortunes", fortunes));
        send(ex, HTML, page.toString().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Reads N rows one query each, gives each a new number, and writes them before the answer in
     * one JDBC batch, ordered by id so that concurrent batches lock rows in the same order (an id
     * drawn twice is written once, with the number answered last).
     */
    void updates(HttpServerExchange ex) throws IOException {
        int n = count(ex, "queries");
        List<World> rows = new ArrayList<>(n);
        try (Connection c = db.pool.getConnection()) {
            try (PreparedStatement ps = c.prepareStatement(WORLD_SQL)) {
                for (int i = 0; i < n; i++) {
                    rows.add(read(ps, randomId()));
                }
            }
            Map<Integer, Integer> last = new TreeMap<>();
            for (World w : rows) {
                w.randomNumber = randomId();
                last.put(w.id, w.randomNumber);
            }
            try (PreparedStatement ps = c.prepareStatement(UPDATE_SQL)) {
                for (Map.Entry<Integer, Integer> e : last.entrySet()) {
                    ps.setInt(1, e.getValue());
                    ps.setInt(2, e.getKey());
                    ps.addBatch();
                }
                ps.executeBatch();
            }
        } catch (SQLException e) {
            unavailable(ex);
            return;
        }
        json(ex, rows);
    }

    /** N random CachedWorld rows from the Caffeine cache (a miss reads the row from CachedWorld). */
    void cachedQueries(HttpServerExchange ex) throws IOException {
        int n = count(ex, "count");
        List<World> rows = new ArrayList<>(n);
        try {
            for (int i = 0; i < n; i++) {
                rows.add(cache.get(randomId()));
            }
        } catch (CompletionException e) { // the loader's SQLException
            unavailable(ex);
            return;
        }
        json(ex, rows);
    }

    /** The cache's loader: one CachedWorld row (an SQLException when the table lacks it). */
    private World cachedWorld(Integer id) throws SQLException {
        try (Connection c = db.pool.getConnection();
             PreparedStatement ps = c.prepareStatement(CACHED_SQL)) {
            return read(ps, id);
        }
    }

    /** N random World rows on one connection, each its own query. */
    private List<World> worlds(int n) throws SQLException {
        List<World> rows = new ArrayList<>(n);
        try (Connection c = db.pool.getConnection();
             PreparedStatement ps = c.prepareStatement(WORLD_SQL)) {
            for (int i = 0; i < n; i++) {
                rows.add(read(ps, randomId()));
            }
        }
        return rows;
    }

    private static World read(PreparedStatement ps, int id) throws SQLException {
        ps.setInt(1, id);
        try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                throw new SQLException("no row " + id);
            }
            return new World(rs.getInt(1), rs.getInt(2));
        }
    }

    /** `name` of the query string clamped to 1..500; missing or not a number is 1. */
    static int count(HttpServerExchange ex, String name) {
        Deque<String> values = ex.getQueryParameters().get(name);
        if (values == null || values.isEmpty()) {
            return 1;
        }
        int n;
        try {
            n = Integer.parseInt(values.getFirst().trim());
        } catch (NumberFormatException e) {
            return 1;
        }
        return Math.max(1, Math.min(500, n));
    }

    /** An id or a number in 1..10,000. */
    static int randomId() {
        return ThreadLocalRandom.current().nextInt(1, ROWS + 1);
    }

    private void json(HttpServerExchange ex, Object value) throws IOException {
        send(ex, PathHandlerProvider.JSON, mapper.writeValueAsBytes(value));
    }

    private static void send(HttpServerExchange ex, String contentType, byte[] body) {
        ex.getResponseHeaders().put(Headers.CONTENT_TYPE, contentType);
        ex.getResponseSender().send(ByteBuffer.wrap(body));
    }

    private static void unavailable(HttpServerExchange ex) {
        PathHandlerProvider.text(ex, 503, "database unavailable");
    }
}
