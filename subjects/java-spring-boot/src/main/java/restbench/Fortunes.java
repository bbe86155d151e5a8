package restbench;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;

import java.util.Comparator;
import java.util.List;

/**
 * TechEmpower's fortunes: every Fortune row and one added, sorted by message here (no ORDER BY),
 * rendered by the Mustache view templates/fortunes.mustache, which HTML-escapes {{message}}.
 */
@Controller
public class Fortunes {
    static final String FORTUNES_SQL = "SELECT id, message FROM Fortune";

    public record Fortune(int id, String message) {}

    private final JdbcTemplate jdbc;

    public Fortunes(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @GetMapping("/fortunes")
    public String fortunes(Model model) {
        List<Fortune> rows = jdbc.query(FORTUNES_SQL, (rs, n) -> new Fortune(rs.getInt(1), rs.getString(2)));
        rows.add(new Fortune(0, "Additional fortune added at request time."));
        rows.sort(Comparator.comparing(Fortune::message));
        model.addAttribute("fortunes", rows);
        return "fortunes";
    }
}
