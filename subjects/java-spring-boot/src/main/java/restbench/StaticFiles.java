package restbench;

import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.config.annotation.ResourceHandlerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * static: Spring MVC's resource handler (ResourceHttpRequestHandler) for /static/** over the folder
 * STATIC_DIR. Each answer is read from disk, its Content-Type from the extension, Last-Modified
 * from the file's mtime and 304 for If-Modified-Since (no ETag unless one is configured); a path
 * that leaves the folder is refused (404). Registered here rather than through
 * spring.web.resources.static-locations, so that an unset or empty STATIC_DIR (which the property
 * would turn into file:/) registers no handler at all and /static/ is a plain 404.
 */
@Configuration
public class StaticFiles implements WebMvcConfigurer {
    @Override
    public void addResourceHandlers(ResourceHandlerRegistry registry) {
        String dir = System.getenv("STATIC_DIR");
        if (dir == null || dir.isBlank() || !Files.isDirectory(Path.of(dir))) {
            System.err.println("java-spring-boot: STATIC_DIR is not a folder; /static/ answers 404");
            return;
        }
        registry.addResourceHandler("/static/**")
                .addResourceLocations(Path.of(dir).toAbsolutePath().toUri().toString());
    }
}
