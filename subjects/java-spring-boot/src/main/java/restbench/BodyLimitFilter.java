package restbench;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;

/**
 * Request bodies over 1 MiB → 413. A declared Content-Length is checked up front; a chunked body
 * is counted while it is read and aborted past the limit.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
public class BodyLimitFilter extends OncePerRequestFilter {
    static final long LIMIT = 1024 * 1024;

    @Override
    protected void doFilterInternal(HttpServletRequest req, HttpServletResponse res, FilterChain chain)
            throws ServletException, IOException {
        long len = req.getContentLengthLong();
        if (len > LIMIT) {
            tooLarge(res);
            return;
        }
        if (len < 0 && req.getHeader("Transfer-Encoding") != null) {
            chain.doFilter(new Limited(req), res);
        } else {
            chain.doFilter(req, res);
        }
    }

    static void tooLarge(HttpServletResponse res) throws IOException {
        res.setStatus(413);
        res.setHeader("Connection", "close");
        res.setContentType("text/plain");
        byte[] b = "payload too large".getBytes();
        res.setContentLength(b.length);
        res.getOutputStream().write(b);
    }

    /** Thrown by the counting stream; mapped to 413 below. */
    static final class TooLarge extends IOException {
        TooLarge() {
            super("request body over " + LIMIT + " bytes", null);
        }
    }

    @RestControllerAdvice
    static class Advice {
        @ExceptionHandler(TooLarge.class)
        ResponseEntity<String> tooLarge() {
            return ResponseEntity.status(HttpStatus.PAYLOAD_TOO_LARGE)
                    .header("Connection", "close")
                    .contentType(MediaType.TEXT_PLAIN).body("payload too large");
        }
    }

    private static final class Limited extends HttpServletRequestWrapper {
        private ServletInputStream in;

        Limited(HttpServletRequest r) {
            super(r);
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (in == null) {
                ServletInputStream inner = super.getInputStream();
                in = new ServletInputStream() {
                    long n;

                    private void count(long k) throws IOException {
                        if (k > 0 && (n += k) > LIMIT) {
                            throw new TooLarge();
                        }
                    }

                    @Override
                    public int read() throws IOException {
                        int b = inner.read();
                        if (b >= 0) {
                            count(1);
                        }
                        return b;
                    }

                    @Override
                    public int read(byte[] buf, int off, int len) throws IOException {
                        int k = inner.read(buf, off, len);
                        count(k);
                        return k;
                    }

                    @Override
                    public boolean isFinished() {
                        return inner.isFinished();
                    }

                    @Override
                    public boolean isReady() {
                        return inner.isReady();
                    }

                    @Override
                    public void setReadListener(ReadListener l) {
                        inner.setReadListener(l);
                    }
                };
            }
            return in;
        }
    }
}
