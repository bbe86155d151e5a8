using Microsoft.AspNetCore.Mvc;

namespace DotNetCoreRestService.Controllers
{
    // As the seed's TestController: GET /api/test answers the string as text/plain.
    [Route("api/[controller]")]
    [ApiController]
    public class TestController : ControllerBase
    {
        [HttpGet]
        public ActionResult<string> Get()
        {
            return "Hello, World!";
        }
    }
}
