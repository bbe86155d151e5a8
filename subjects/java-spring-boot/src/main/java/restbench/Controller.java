package restbench;

import com.zaxxer.hikari.HikariDataSource;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

@RestController
public class Controller {
    static final String USERS_SQL =
            "SELECT id, username, name, sex, address, mail, birthdate FROM \"user\" ORDER BY id";

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
