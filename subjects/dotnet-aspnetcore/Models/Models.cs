using System;
using System.Collections.Generic;
using Newtonsoft.Json;

namespace DotNetCoreRestService.Models
{
    // MVC's JSON settings camel-case the names: Title -> "title", CreatedAt -> "createdAt".
    public class TodoItem
    {
        public string Title { get; set; }
        public DateTime CreatedAt { get; set; }
    }

    // The echo body of seed 000: {"colors": [...]}.
    public class ColorsDocument
    {
        public List<Color> Colors { get; set; }
    }

    public class Color
    {
        // A member may not share its class's name in C#: the JSON name is given.
        [JsonProperty("color")]
        public string Name { get; set; }
        public string Category { get; set; }
        public string Type { get; set; }
        public Code Code { get; set; }
    }

    public class Code
    {
        public int[] Rgba { get; set; }
        public string Hex { get; set; }
    }
}
