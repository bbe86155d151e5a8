package restbench;

import com.zaxxer.hikari.HikariDataSource;
import jakarta.servlet.http.HttpServletResponse;
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

import java.io.IOException;
import java.io.InputStream;
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
import java.util.zip.CRC32;

@RestController
public class Controller {
    static final String USERS_SQL =
            "SELECT id, username, name, sex, address, mail, birthdate FROM \"user\" ORDER BY id";
    static final int DELAY_MAX_MS = 10_000;
    static final int DOWNLOAD_MAX = 10 * 1024 * 1024;

    /** What /download/{n} writes a slice of: byte i is i mod 256. */
    private static final byte[] PATTERN = new byte[DOWNLOAD_MAX];
    static {
        for (int i = 0; i < DOWNLOAD_MAX; i++) {
            PATTERN[i] = (byte) i;
        }
    }

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

    /**
     * The body's length and CRC-32 from the bytes read from the request's InputStream (Spring MVC
     * hands it to an InputStream parameter; BodyLimitFilter has refused a Content-Length over 1 MiB
     * and counts a chunked body while it is read).
     */
    @PostMapping(value = "/upload", produces = MediaType.TEXT_PLAIN_VALUE)
    public String upload(InputStream body) throws IOException {
        CRC32 crc = new CRC32();
        byte[] buf = new byte[16 * 1024];
        long n = 0;
        for (int k; (k = body.read(buf)) != -1; ) {
            crc.update(buf, 0, k);
            n += k;
        }
        return n + " " + String.format("%08x", crc.getValue());
    }

    /**
     * n bytes sliced from the buffer made at start-up, written to the response with their
     * Content-Length. Not digits → no route (404); over 10 MiB → 400.
     */
    @GetMapping("/download/{n:[0-9]+}")
    public void download(@PathVariable String n, HttpServletResponse res) throws IOException {
        long size = n.length() > 8 ? DOWNLOAD_MAX + 1L : Long.parseLong(n);
        if (size > DOWNLOAD_MAX) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "download over " + DOWNLOAD_MAX + " bytes");
        }
        res.setContentType(MediaType.APPLICATION_OCTET_STREAM_VALUE);
        res.setContentLength((int) size);
        res.getOutputStream().write(PATTERN, 0, (int) size);
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
