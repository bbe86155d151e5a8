package restbench;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;

@SpringBootApplication
@EnableCaching
public class Application {
    private final Environment env;

    public Application(Environment env) {
        this.env = env;
    }

    public static void main(String[] args) {
        SpringApplication.run(Application.class, args);
    }

    /** The one start-up line (Spring's own start-up logging is turned off). */
    @EventListener(ApplicationReadyEvent.class)
    public void ready() {
        System.err.println("java-spring-boot listening on " + env.getProperty("server.address") + ":"
                + env.getProperty("local.server.port") + " (tomcat threads max "
                + env.getProperty("server.tomcat.threads.max") + ", cpus "
                + Runtime.getRuntime().availableProcessors() + ")");
    }
}
