package restbench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

@Configuration
public class Database {
    /**
     * The pool is created at start-up; initializationFailTimeout = -1 lets it start while the
     * database is down (connections are then made in the background, and on demand).
     */
    @Bean(destroyMethod = "close")
    public HikariDataSource dataSource() {
        return create();
    }

    static HikariDataSource create() {
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
        cfg.setConnectionTimeout(2000);
        cfg.setValidationTimeout(1000);
        cfg.setInitializationFailTimeout(-1);
        cfg.setPoolName("users");
        // driver: bounded connect and read, so a dead database never hangs a request
        cfg.addDataSourceProperty("connectTimeout", "2");
        cfg.addDataSourceProperty("socketTimeout", "10");
        // the server cancels a query stuck on a lock after 2 s → 503
        cfg.addDataSourceProperty("options", "-c statement_timeout=2000");
        cfg.addDataSourceProperty("tcpKeepAlive", "true");
        return new HikariDataSource(cfg);
    }

    private static String dec(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }
}
