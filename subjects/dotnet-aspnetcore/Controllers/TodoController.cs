using System;
using System.Collections.Generic;
using DotNetCoreRestService.Models;
using Microsoft.AspNetCore.Mvc;

namespace DotNetCoreRestService.Controllers
{
    [Route("rest/todo")]
    [ApiController]
    public class TodoController : ControllerBase
    {
        // Typed objects in memory, serialized by MVC's Newtonsoft.Json formatter on every request.
        private static readonly List<TodoItem> Items = Create();

        private static List<TodoItem> Create()
        {
            var now = DateTime.UtcNow;
            var createdAt = new DateTime(now.Ticks - now.Ticks % TimeSpan.TicksPerMillisecond, DateTimeKind.Utc);
            var titles = new[]
            {
                "Do some stuff", "Do more stuff", "Even more stuff", "Yihaa",
                "Java is great! Or isn't it?", "Foo Bar", "Lorem ipsum", "Dolor sit amet",
            };
            var items = new List<TodoItem>();
            foreach (var title in titles)
            {
                items.Add(new TodoItem { Title = title, CreatedAt = createdAt });
            }
            return items;
        }

        [HttpGet]
        public ActionResult<List<TodoItem>> Get()
        {
            return Items;
        }
    }
}
