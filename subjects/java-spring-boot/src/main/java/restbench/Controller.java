package restbench;

import com.zaxxer.hikari.HikariDataSource;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.server.ResponseStatusException;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

@RestController
public class Controller {
    static final String USERS_SQL =
            "SELECT id, username, name, sex, address, mail, birthdate FROM \"user\" ORDER BY id";
    static final int DELAY_MAX_MS = 10_000;

    /**
     * The timer of /delay: one daemon thread that only completes each wait's DeferredResult, so
     * that a waiting request holds no Tomcat thread (Tomcat writes the answer on its own threads).
     */
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "delay-timer");
        t.setDaemon(true);
        return t;
    });

    private final List<Model.TodoItem> todos;
    private final HikariDataSource db;

    public Controller(HikariDataSource db) {
        this.db = db;
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        String[] titles = {"Do some stuff", "Do more stuff", "Even more stuff", "Yihaa",
                "Java is great! Or isn't it?", "Foo Bar", "Lorem ipsum", "Dolor sit amet"};
        List<Model.TodoItem> list = new ArrayList<>(titles.length);
        for (String t : titles) {
            list.add(new Model.TodoItem(t, now));
        }
        this.todos = List.copyOf(list);
    }

    @GetMapping(value = "/api/test", produces = MediaType.TEXT_PLAIN_VALUE)
    public String plaintext() {
        return "Hello, World!";
    }

    @GetMapping(value = "/rest/todo", produces = MediaType.APPLICATION_JSON_VALUE)
    public List<Model.TodoItem> todo() {
        return todos;
    }

    @PostMapping(value = "/echo", produces = MediaType.APPLICATION_JSON_VALUE)
    public Model.Body echo(@RequestBody Model.Body body) {
        return body;
    }

    /**
     * The answer after {ms} milliseconds, as Spring MVC's asynchronous requests do it: a
     * DeferredResult that the timer completes. Not digits → no route (404); over 10,000 → 400 at once.
     */
    @GetMapping(value = "/delay/{ms:[0-9]+}", produces = MediaType.TEXT_PLAIN_VALUE)
    public DeferredResult<String> delay(@PathVariable String ms) {
        int wait = ms.length() > 5 ? DELAY_MAX_MS + 1 : Integer.parseInt(ms);
        if (wait > DELAY_MAX_MS) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "delay over " + DELAY_MAX_MS + " ms");
        }
        DeferredResult<String> result = new DeferredResult<>();
        String body = Integer.toString(wait);
        TIMER.schedule(() -> result.setResult(body), wait, TimeUnit.MILLISECONDS);
        return result;
    }

    @GetMapping(value = "/users", produces = MediaType.APPLICATION_JSON_VALUE)
    public List<Model.User> users() throws SQLException {
        List<Model.User> out = new ArrayList<>(100);
        try (Connection c = db.getConnection();
             PreparedStatement ps = c.prepareStatement(USERS_SQL);
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                Model.User u = new Model.User();
                u.id = rs.getInt(1);
                u.username = rs.getString(2);
                u.name = rs.getString(3);
                u.sex = rs.getString(4);
                u.address = caesar(rs.getString(5));
                u.mail = rs.getString(6);
                u.birthdate = rs.getObject(7, LocalDateTime.class);
                out.add(u);
            }
        }
        return out;
    }

    /** Any database failure (pool acquire timeout after 2 s, connection refused, ...) → 503. */
    @ExceptionHandler(SQLException.class)
    public ResponseEntity<String> dbDown(SQLException e) {
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .contentType(MediaType.TEXT_PLAIN)
                .body("database unavailable");
    }

    /** Caesar cipher of seed 003 on each code point (above 127 unchanged). */
    static String caesar(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        s.codePoints().forEach(n -> {
            if (n <= 127) {
                n += 14;
                if (n > 127) {
                    n -= 26;
                }
            }
            sb.appendCodePoint(n);
        });
        return sb.toString();
    }
}
