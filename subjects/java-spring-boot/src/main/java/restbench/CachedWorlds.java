package restbench;

import org.springframework.cache.annotation.Cacheable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;

/**
 * CachedWorld rows through Spring's cache abstraction: the `cachedWorld` cache is Caffeine
 * (application.properties), and a miss reads the row from CachedWorld once.
 */
@Service
public class CachedWorlds {
    static final String CACHED_SQL = "SELECT id, randomNumber FROM CachedWorld WHERE id = ?";

    private final JdbcTemplate jdbc;

    public CachedWorlds(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @Cacheable("cachedWorld")
    public TechEmpower.World find(int id) {
        return jdbc.queryForObject(CACHED_SQL, TechEmpower.WORLD, id);
    }
}
