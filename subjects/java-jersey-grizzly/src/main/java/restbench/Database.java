package restbench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;

/** HikariCP pool over the PostgreSQL JDBC driver, created at start-up. */
public final class Database {
    static final String USERS_SQL =
            "SELECT id, username, name, sex, address, mail, birthdate FROM \"user\" ORDER BY id";

    /** The one pool of the process, created when Main starts. */
    static final Database INSTANCE = new Database();

    final HikariDataSource pool;

    Database() {
        String url = System.getenv().getOrDefault("DATABASE_URL",
                "postgres://postgres:bench@127.0.0.1:55432/postgres");
        int poolSize = Integer.parseInt(System.getenv().getOrDefault("DB_POOL_SIZE", "10"));
        URI u = URI.create(url);
        HikariConfig cfg = new HikariConfig();
        int port = u.getPort() > 0 ? u.getPort() : 5432;
        String path = u.getRawPath() == null || u.getRawPath().length() <= 1 ? "/postgres" : u.getRawPath();
        cfg.setJdbcUrl("jdbc:postgresql://" + u.getHost() + ":" + port + path);
        String userInfo = u.getRawUserInfo();
        if (userInfo != null) {
            int i = userInfo.indexOf(':');
            cfg.setUsername(dec(i < 0 ? userInfo : userInfo.substring(0, i)));
            if (i >= 0) {
                cfg.setPassword(dec(userInfo.substring(i + 1)));
            }
        }
        cfg.setMaximumPoolSize(poolSize);
        cfg.setMinimumIdle(poolSize);
        cfg.setConnectionTimeout(2000);       // acquire timeout → 503 after ~2 s
        cfg.setValidationTimeout(1000);
        cfg.setInitializationFailTimeout(-1); // start even when the database is down
        cfg.setPoolName("users");
        cfg.addDataSourceProperty("connectTimeout", "2");
        cfg.addDataSourceProperty("socketTimeout", "10");
        // the server cancels a query stuck on a lock after 2 s → 503
        cfg.addDataSourceProperty("options", "-c statement_timeout=2000");
        cfg.addDataSourceProperty("tcpKeepAlive", "true");
        pool = new HikariDataSource(cfg);
    }

    /** All rows, each mapped to a typed User; address through the Caesar cipher. */
    List<Model.User> users() throws SQLException {
        List<Model.User> out = new ArrayList<>(100);
        try (Connection c = pool.getConnection();
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

    private static String dec(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }
}
