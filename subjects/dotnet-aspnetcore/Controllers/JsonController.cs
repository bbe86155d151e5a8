using Microsoft.AspNetCore.Mvc;

namespace DotNetCoreRestService.Controllers
{
    // TechEmpower's JSON test as an MVC action, the way TechEmpower's aspnetcore-mvc entry served
    // it: a new object per request, serialized by MVC's JSON formatter (Newtonsoft, camelCase:
    // {"message":"Hello, World!"}); Kestrel adds Server and Date to every answer.
    [Route("json")]
    [ApiController]
    public class JsonController : ControllerBase
    {
        [HttpGet]
        public ActionResult<JsonMessage> Get()
        {
            return new JsonMessage { Message = "Hello, World!" };
        }
    }

    public class JsonMessage
    {
        public string Message { get; set; }
    }
}
