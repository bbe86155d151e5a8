package restbench;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * TechEmpower requires a Server header (Tomcat sends none by default; it adds Date): an
 * interceptor sets it on the answers of TechEmpower's six paths only, so the seeds' workloads
 * answer as before.
 */
@Configuration
public class ServerHeader implements WebMvcConfigurer {
    static final String SERVER = "java-spring-boot";

    @Override
    public void addInterceptors(InterceptorRegistry registry) {
        registry.addInterceptor(new HandlerInterceptor() {
            @Override
            public boolean preHandle(HttpServletRequest req, HttpServletResponse res, Object handler) {
                res.setHeader("Server", SERVER);
                return true;
            }
        }).addPathPatterns("/json", "/db", "/queries", "/fortunes", "/updates", "/cached-queries");
    }
}
