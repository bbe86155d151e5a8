package restbench;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import com.github.mustachejava.DefaultMustacheFactory;
import com.github.mustachejava.Mustache;
import jakarta.inject.Singleton;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NameBinding;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.MessageBodyWriter;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * TechEmpower's six test types over the HikariCP pool of /users: json, db, queries, fortunes,
 * updates and cached-queries, as JAX-RS resources. Every World row is its own query on a
 * PreparedStatement (the PostgreSQL driver prepares it on the server after a few uses and keeps
 * it per connection); the fortunes page is rendered by mustache.java, whose {{...}} escapes
 * HTML, through a MessageBodyWriter; cached-queries read through a Caffeine LoadingCache, filled
 * from CachedWorld at start-up and loading a row on a miss. Their answers, and only theirs, carry
 * a Server header (a name-bound filter), so the seeds' workloads answer as before.
 */
public final class Tfb {
    private Tfb() {}

    static final String WORLD_SQL = "SELECT id, randomNumber FROM World WHERE id = ?";
    static final String FORTUNES_SQL = "SELECT id, message FROM Fortune";
    static final String UPDATE_SQL = "UPDATE World SET randomNumber = ? WHERE id = ?";
    static final String CACHED_ALL_SQL = "SELECT id, randomNumber FROM CachedWorld";
    static final String CACHED_ONE_SQL = "SELECT id, randomNumber FROM CachedWorld WHERE id = ?";
    static final String HTML_UTF8 = "text/html; charset=utf-8";
    static final String SERVER = "java-jersey-grizzly";

    // ---- payload types ----

    public static final class Message {
        public final String message;

        public Message(String message) {
            this.message = message;
        }
    }

    public static final class World {
        public final int id;
        public int randomNumber;

        public World(int id, int randomNumber) {
            this.id = id;
            this.randomNumber = randomNumber;
        }
    }

    /** A Fortune row; mustache.java reads its public fields. */
    public static final class Fortune {
        public final int id;
        public final String message;

        public Fortune(int id, String message) {
            this.id = id;
            this.message = message;
        }
    }

    /** The fortunes page's model, written by {@link FortunesWriter}. */
    public static final class FortunesPage {
        public final List<Fortune> fortunes;

        FortunesPage(List<Fortune> fortunes) {
            this.fortunes = fortunes;
        }
    }

    // ---- Server header, 503, the page writer ----

    /** Binds {@link ServerHeader} to TechEmpower's resources only. */
    @NameBinding
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.TYPE, ElementType.METHOD})
    public @interface TechEmpower {}

    /** TechEmpower requires a Server header on every answer (Grizzly sends none by default). */
    @TechEmpower
    public static final class ServerHeader implements ContainerResponseFilter {
        @Override
        public void filter(ContainerRequestContext req, ContainerResponseContext res) {
            res.getHeaders().putSingle("Server", SERVER);
        }
    }

    /** The database unreachable, a pool timeout or a cancelled statement: 503. */
    public static final class Unavailable implements ExceptionMapper<SQLException> {
        @Override
        public Response toResponse(SQLException e) {
            return Response.status(Response.Status.SERVICE_UNAVAILABLE)
                    .type(MediaType.TEXT_PLAIN_TYPE).entity("database unavailable").build();
        }
    }

    /** Renders {@link FortunesPage} with templates/fortunes.mustache, compiled once, in UTF-8. */
    @Produces(HTML_UTF8)
    public static final class FortunesWriter implements MessageBodyWriter<FortunesPage> {
        private final Mustache template =
                new DefaultMustacheFactory("templates").compile("fortunes.mustache");

        @Override
        public boolean isWriteable(Class<?> type, Type generic, java.lang.annotation.Annotation[] annotations,
                                   MediaType mediaType) {
            return type == FortunesPage.class;
        }

        @Override
        public void writeTo(FortunesPage page, Class<?> type, Type generic,
                            java.lang.annotation.Annotation[] annotations, MediaType mediaType,
                            MultivaluedMap<String, Object> headers, OutputStream out) throws IOException {
            Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
            template.execute(w, page);
            w.flush();
        }
    }

    // ---- helpers ----

    /** A query-string count clamped to 1..500; missing or not a number is 1. */
    static int count(String value) {
        if (value == null) {
            return 1;
        }
        try {
            return Math.max(1, Math.min(500, Integer.parseInt(value.trim())));
        } catch (NumberFormatException e) {
            return 1;
        }
    }

    /** An id or a number in 1..10,000. */
    static int randomId() {
        return ThreadLocalRandom.current().nextInt(1, 10_001);
    }

    /** n random World rows on one connection, each row its own execution of one PreparedStatement. */
    static List<World> worlds(Connection c, int n) throws SQLException {
        List<World> rows = new ArrayList<>(n);
        try (PreparedStatement ps = c.prepareStatement(WORLD_SQL)) {
            for (int i = 0; i < n; i++) {
                ps.setInt(1, randomId());
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        throw new SQLException("no World row");
                    }
                    rows.add(new World(rs.getInt(1), rs.getInt(2)));
                }
            }
        }
        return rows;
    }

    // ---- the resources ----

    @Path("/json")
    @Singleton
    @TechEmpower
    public static final class Json {
        @GET
        @Produces(MediaType.APPLICATION_JSON)
        public Message get() {
            return new Message("Hello, World!");
        }
    }

    @Path("/db")
    @Singleton
    @TechEmpower
    public static final class Db {
        private final Database db = Database.INSTANCE;

        @GET
        @Produces(MediaType.APPLICATION_JSON)
        public World get() throws SQLException {
            try (Connection c = db.pool.getConnection()) {
                return worlds(c, 1).get(0);
            }
        }
    }

    @Path("/queries")
    @Singleton
    @TechEmpower
    public static final class Queries {
        private final Database db = Database.INSTANCE;

        @GET
        @Produces(MediaType.APPLICATION_JSON)
        public List<World> get(@QueryParam("queries") String queries) throws SQLException {
            try (Connection c = db.pool.getConnection()) {
                return worlds(c, count(queries));
            }
        }
    }

    /** Every fortune and one added, sorted by message here (no ORDER BY), rendered by Mustache. */
    @Path("/fortunes")
    @Singleton
    @TechEmpower
    public static final class Fortunes {
        private final Database db = Database.INSTANCE;

        @GET
        @Produces(HTML_UTF8)
        public FortunesPage get() throws SQLException {
            List<Fortune> fortunes = new ArrayList<>(16);
            try (Connection c = db.pool.getConnection();
                 PreparedStatement ps = c.prepareStatement(FORTUNES_SQL);
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    fortunes.add(new Fortune(rs.getInt(1), rs.getString(2)));
                }
            }
            fortunes.add(new Fortune(0, "Additional fortune added at request time."));
            fortunes.sort(Comparator.comparing(f -> f.message));
            return new FortunesPage(fortunes);
        }
    }

    /**
     * n rows read one query each, each given a new number, written in one JDBC batch (one round
     * trip, one transaction, rows in id order so that concurrent batches never deadlock) before the
     * answer.
     */
    @Path("/updates")
    @Singleton
    @TechEmpower
    public static final class Updates {
        private final Database db = Database.INSTANCE;

        @GET
        @Produces(MediaType.APPLICATION_JSON)
        public List<World> get(@QueryParam("queries") String queries) throws SQLException {
            try (Connection c = db.pool.getConnection()) {
                List<World> rows = worlds(c, count(queries));
                for (World w : rows) {
                    w.randomNumber = randomId();
                }
                List<World> byId = new ArrayList<>(rows);
                byId.sort(Comparator.comparingInt(w -> w.id));
                try (PreparedStatement ps = c.prepareStatement(UPDATE_SQL)) {
                    for (World w : byId) {
                        ps.setInt(1, w.randomNumber);
                        ps.setInt(2, w.id);
                        ps.addBatch();
                    }
                    ps.executeBatch();
                }
                return rows;
            }
        }
    }

    /** CachedWorld rows from a Caffeine cache of all 10,000, filled at start-up; a miss loads the row. */
    @Path("/cached-queries")
    @Singleton
    @TechEmpower
    public static final class CachedQueries {
        private final Database db = Database.INSTANCE;
        private final LoadingCache<Integer, World> cache = Caffeine.newBuilder()
                .maximumSize(10_000)
                .build(this::load);

        public CachedQueries() {
            // fill from CachedWorld off the start-up path: a database down at start-up delays nothing
            Thread fill = new Thread(this::fill, "cachedworld-fill");
            fill.setDaemon(true);
            fill.start();
        }

        private void fill() {
            try (Connection c = db.pool.getConnection();
                 PreparedStatement ps = c.prepareStatement(CACHED_ALL_SQL);
                 ResultSet rs = ps.executeQuery()) {
                Map<Integer, World> all = new java.util.HashMap<>(16_384);
                while (rs.next()) {
                    all.put(rs.getInt(1), new World(rs.getInt(1), rs.getInt(2)));
                }
                cache.putAll(all);
            } catch (SQLException e) {
                // rows are loaded one by one on a miss instead
            }
        }

        private World load(Integer id) throws SQLException {
            try (Connection c = db.pool.getConnection();
                 PreparedStatement ps = c.prepareStatement(CACHED_ONE_SQL)) {
                ps.setInt(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        throw new SQLException("no CachedWorld row " + id);
                    }
                    return new World(rs.getInt(1), rs.getInt(2));
                }
            }
        }

        @GET
        @Produces(MediaType.APPLICATION_JSON)
        public List<World> get(@QueryParam("count") String count) throws SQLException {
            int n = count(count);
            List<World> rows = new ArrayList<>(n);
            try {
                for (int i = 0; i < n; i++) {
                    rows.add(cache.get(randomId()));
                }
            } catch (CompletionException e) {
                if (e.getCause() instanceof SQLException s) {
                    throw s;
                }
                throw e;
            }
            return rows;
        }
    }
}
