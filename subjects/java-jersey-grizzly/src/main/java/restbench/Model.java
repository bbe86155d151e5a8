package restbench;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.time.Instant;
import java.time.LocalDateTime;
import java.util.List;

/** Typed classes of the three JSON workloads (public fields, as seed 000's Java). */
public final class Model {
    private Model() {}

    public static final class TodoItem {
        public String title;
        public Instant createdAt;

        public TodoItem() {}

        public TodoItem(String title, Instant createdAt) {
            this.title = title;
            this.createdAt = createdAt;
        }
    }

    /** Echo body of seed 000: {"colors":[...]}. NON_NULL: the white entries have no "type". */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static final class Body {
        public List<Color> colors;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static final class Color {
        public String color;
        public String category;
        public String type;
        public Code code;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static final class Code {
        public int[] rgba;
        public String hex;
    }

    public static final class User {
        public int id;
        public String username;
        public String name;
        public String sex;
        public String address;
        public String mail;
        public LocalDateTime birthdate;
    }
}
