package restbench;

import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * TechEmpower's JSON types: json, db, queries, updates and cached-queries (fortunes is
 * {@link Fortunes}). The World rows are read through JdbcTemplate over the HikariCP pool of
 * /users, each row its own query; the Server header comes from {@link ServerHeader}.
 */
@RestController
public class TechEmpower {
    static final String WORLD_SQL = "SELECT id, randomNumber FROM World WHERE id = ?";
    static final String UPDATE_SQL = "UPDATE World SET randomNumber = ? WHERE id = ?";
    static final RowMapper<World> WORLD = (rs, n) -> new World(rs.getInt(1), rs.getInt(2));

    public record Message(String message) {}

    public record World(int id, int randomNumber) {}

    private final JdbcTemplate jdbc;
    private final CachedWorlds cached;

    public TechEmpower(JdbcTemplate jdbc, CachedWorlds cached) {
        this.jdbc = jdbc;
        this.cached = cached;
    }

    /** `queries` or `count` of the query string clamped to 1..500; missing or not a number is 1. */
    static int clamp(String n) {
        if (n == null) {
            return 1;
        }
        try {
            return Math.min(Math.max(Integer.parseInt(n.trim()), 1), 500);
        } catch (NumberFormatException e) {
            return 1;
        }
    }

    /** An id or a number in 1..10,000. */
    static int randomId() {
        return ThreadLocalRandom.current().nextInt(1, 10_001);
    }

    private World world() {
        return jdbc.queryForObject(WORLD_SQL, WORLD, randomId());
    }

    private List<World> worlds(int n) {
        List<World> rows = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            rows.add(world());
        }
        return rows;
    }

    @GetMapping(value = "/json", produces = MediaType.APPLICATION_JSON_VALUE)
    public Message json() {
        return new Message("Hello, World!");
    }

    @GetMapping(value = "/db", produces = MediaType.APPLICATION_JSON_VALUE)
    public World db() {
        return world();
    }

    @GetMapping(value = "/queries", produces = MediaType.APPLICATION_JSON_VALUE)
    public List<World> queries(@RequestParam(required = false) String queries) {
        return worlds(clamp(queries));
    }

    /**
     * Reads n rows one query each, gives each a new number and writes them in one JDBC batch
     * before the answer, in id order (an id drawn twice keeps its last number, the one answered
     * last).
     */
    @GetMapping(value = "/updates", produces = MediaType.APPLICATION_JSON_VALUE)
    public List<World> updates(@RequestParam(required = false) String queries) {
        List<World> rows = worlds(clamp(queries));
        Map<Integer, Integer> last = new TreeMap<>();
        for (int i = 0; i < rows.size(); i++) {
            World w = new World(rows.get(i).id(), randomId());
            rows.set(i, w);
            last.put(w.id(), w.randomNumber());
        }
        List<Object[]> args = new ArrayList<>(last.size());
        last.forEach((id, number) -> args.add(new Object[] {number, id}));
        jdbc.batchUpdate(UPDATE_SQL, args);
        return rows;
    }

    @GetMapping(value = "/cached-queries", produces = MediaType.APPLICATION_JSON_VALUE)
    public List<World> cachedQueries(@RequestParam(required = false) String count) {
        int n = clamp(count);
        List<World> rows = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            rows.add(cached.find(randomId()));
        }
        return rows;
    }

    /**
     * Any database failure of these six types (pool acquire timeout after 2 s, connection
     * refused, ...) → 503.
     */
    @RestControllerAdvice(assignableTypes = {TechEmpower.class, Fortunes.class})
    static class Advice {
        @ExceptionHandler(DataAccessException.class)
        ResponseEntity<String> dbDown(DataAccessException e) {
            return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                    .contentType(MediaType.TEXT_PLAIN)
                    .body("database unavailable");
        }
    }
}
