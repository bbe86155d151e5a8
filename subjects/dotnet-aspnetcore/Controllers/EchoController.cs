using DotNetCoreRestService.Models;
using Microsoft.AspNetCore.Mvc;

namespace DotNetCoreRestService.Controllers
{
    [Route("echo")]
    [ApiController]
    public class EchoController : ControllerBase
    {
        // [ApiController] binds the body with Newtonsoft.Json into the typed document and answers
        // 400 by itself when it is malformed; the answer is serialized again from the objects.
        [HttpPost]
        public ActionResult<ColorsDocument> Post([FromBody] ColorsDocument body)
        {
            return body;
        }
    }
}
