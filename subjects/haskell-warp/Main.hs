{-# LANGUAGE BangPatterns #-}
{-# LANGUAGE DeriveGeneric #-}
{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
-- | restbench subject: Warp (WAI) with aeson, postgresql-simple and resource-pool, all from
-- Debian's GHC packages. Routes: GET /api/test, GET /rest/todo, POST /echo, GET /users,
-- TechEmpower's GET /json, /db, /queries, /fortunes, /updates, /cached-queries (module Tfb), and
-- HttpArena's GET /delay/{ms}, GET /static/{file} (wai-app-static), POST /upload, GET
-- /download/{n}; every answer passes wai-extra's gzip middleware (json-gzip).
module Main (main) where

import Control.Concurrent (threadDelay)
import Control.Exception (SomeException, try)
import Data.Aeson (FromJSON (..), Options (..), ToJSON (..), defaultOptions, eitherDecodeStrict',
                   encode, genericParseJSON, genericToEncoding, genericToJSON)
import qualified Data.ByteString as B
import qualified Data.ByteString.Char8 as BC
import qualified Data.ByteString.Lazy as BL
import Data.Char (chr, isDigit, ord)
import Data.Digest.CRC32 (crc32Update)
import Data.IORef (modifyIORef', newIORef, readIORef)
import Data.Pool (Pool, createPool, withResource)
import Data.String (fromString)
import Data.Text (Text)
import qualified Data.Text as T
import Data.Time (LocalTime, UTCTime (..), getCurrentTime, picosecondsToDiffTime)
import Data.Word (Word32)
import Database.PostgreSQL.Simple (Connection, close, connectPostgreSQL, query_)
import GHC.Conc (numCapabilities)
import GHC.Generics (Generic)
import Network.HTTP.Types (Status, hContentLength, hContentType, status200,
                           status400, status404, status405, status413, status503)
import Network.Wai (Application, Request, RequestBodyLength (..), Response, getRequestBodyChunk,
                    pathInfo, requestBodyLength, requestMethod, responseLBS)
import Network.Wai.Application.Static (defaultFileServerSettings, ssIndices, ssListing, staticApp)
import Network.Wai.Middleware.Gzip (GzipFiles (..), def, gzip, gzipFiles, gzipSizeThreshold)
import qualified Network.Wai.Handler.Warp as Warp
import Numeric (showHex)
import System.Environment (lookupEnv)
import System.IO (hPutStrLn, stderr)
import System.Timeout (timeout)
import Text.Read (readMaybe)

import Tfb (Tfb, newTfb, routes)

-- * Data

data TodoItem = TodoItem { title :: !Text, createdAt :: !UTCTime } deriving (Generic)

instance ToJSON TodoItem where
  toJSON = genericToJSON defaultOptions
  toEncoding = genericToEncoding defaultOptions

-- | Seed 000's echo body, typed as its Go and Java servers did; absent fields stay absent.
newtype Body = Body { colors :: [Color] } deriving (Generic)

data Color = Color
  { color :: !(Maybe Text), category :: !(Maybe Text), type_ :: !(Maybe Text), code :: !(Maybe Code) }
  deriving (Generic)

data Code = Code { rgba :: !(Maybe [Int]), hex :: !(Maybe Text) } deriving (Generic)

jsonOptions :: Options
jsonOptions = defaultOptions { omitNothingFields = True, fieldLabelModifier = filter (/= '_') }

instance FromJSON Body where parseJSON = genericParseJSON jsonOptions
instance ToJSON Body where
  toJSON = genericToJSON jsonOptions
  toEncoding = genericToEncoding jsonOptions
instance FromJSON Color where parseJSON = genericParseJSON jsonOptions
instance ToJSON Color where
  toJSON = genericToJSON jsonOptions
  toEncoding = genericToEncoding jsonOptions
instance FromJSON Code where parseJSON = genericParseJSON jsonOptions
instance ToJSON Code where
  toJSON = genericToJSON jsonOptions
  toEncoding = genericToEncoding jsonOptions

data User = User
  { userId :: !Int, username :: !Text, name :: !Text, sex :: !Text, address :: !Text
  , mail :: !Text, birthdate :: !LocalTime }
  deriving (Generic)

instance ToJSON User where
  toJSON = genericToJSON userOptions
  toEncoding = genericToEncoding userOptions

userOptions :: Options
userOptions = defaultOptions { fieldLabelModifier = \f -> if f == "userId" then "id" else f }

-- | Caesar cipher of seed 003 on each code point (above 127 unchanged).
caesar :: Text -> Text
caesar = T.map shift
  where
    shift c
      | n <= 127 = let m = n + 14 in chr (if m > 127 then m - 26 else m)
      | otherwise = c
      where n = ord c

-- * Responses

bodyLimit :: Int
bodyLimit = 1024 * 1024

respond :: Status -> B.ByteString -> BL.ByteString -> Response
respond st ctype body =
  responseLBS st [(hContentType, ctype), (hContentLength, BC.pack (show (BL.length body)))] body

json :: ToJSON a => a -> Response
json = respond status200 "application/json" . encode

text :: Status -> BL.ByteString -> Response
text st = respond st "text/plain; charset=utf-8"

-- | The whole request body, at most 'bodyLimit' bytes: a declared Content-Length is checked up
-- front, a chunked body is counted while it is read.
readBody :: Request -> IO (Maybe B.ByteString)
readBody req = case requestBodyLength req of
  KnownLength n | fromIntegral n > bodyLimit -> pure Nothing
  _ -> do
    acc <- newIORef []
    let loop !size = do
          chunk <- getRequestBodyChunk req
          if B.null chunk
            then Just . B.concat . reverse <$> readIORef acc
            else do
              let size' = size + B.length chunk
              if size' > bodyLimit
                then pure Nothing
                else modifyIORef' acc (chunk :) >> loop size'
    loop (0 :: Int)

-- | Length and CRC-32 (zlib's, through the digest package) of the request body, folded chunk by
-- chunk as Warp reads it, so a chunked upload is counted the same; Nothing past 'bodyLimit'.
crcBody :: Request -> IO (Maybe (Int, Word32))
crcBody req = case requestBodyLength req of
  KnownLength n | fromIntegral n > bodyLimit -> pure Nothing
  _ -> loop 0 0
  where
    loop !size !crc = do
      chunk <- getRequestBodyChunk req
      if B.null chunk
        then pure (Just (size, crc))
        else do
          let size' = size + B.length chunk
          if size' > bodyLimit then pure Nothing else loop size' (crc32Update crc chunk)

-- | Eight lowercase hex digits.
hex8 :: Word32 -> String
hex8 w = let h = showHex w "" in replicate (8 - length h) '0' ++ h

-- * Application

app :: [TodoItem] -> Pool Connection -> Tfb -> Application -> B.ByteString -> Application
app todos pool tfb static downloadBuf req send = case (pathInfo req, requestMethod req) of
  (["api", "test"], "GET") -> send (text status200 "Hello, World!")
  (["api", "test"], _) -> send notAllowed
  (["rest", "todo"], "GET") -> send (json todos)
  (["rest", "todo"], _) -> send notAllowed
  (["echo"], "POST") -> do
    body <- readBody req
    send $ case body of
      Nothing -> text status413 "Payload Too Large"
      Just bytes -> case eitherDecodeStrict' bytes of
        Left _ -> text status400 "Bad Request"
        Right (b :: Body) -> json b
  (["echo"], _) -> send notAllowed
  (["users"], "GET") -> do
    -- pool acquire + query bounded to 2 s; any database error or time-out → 503
    r <- timeout 2000000 (try (withResource pool (\c -> query_ c usersSql)))
    send $ case r of
      Just (Right rows) -> json (map toUser rows)
      Just (Left (_ :: SomeException)) -> dbDown
      Nothing -> dbDown
  (["users"], _) -> send notAllowed
  -- threadDelay parks only this request's Haskell thread (the threaded RTS's timer manager wakes
  -- it), so no OS thread waits; not whole milliseconds up to 10,000: 404 at once
  (["delay", ms], "GET") -> case delayMs ms of
    Just n -> threadDelay (n * 1000) >> send (text status200 (fromString (show n)))
    Nothing -> send (text status404 "Not Found")
  (["delay", _], _) -> send notAllowed
  -- wai-app-static's file server on the rest of the path: it answers GET and HEAD (405 else),
  -- 403 for a segment starting with '.', 404 for a missing file
  ("static" : rest, _) -> static req { pathInfo = rest } send
  (["upload"], "POST") -> do
    r <- crcBody req
    send $ case r of
      Nothing -> text status413 "Payload Too Large"
      Just (len, crc) -> text status200 (fromString (show len ++ " " ++ hex8 crc))
  (["upload"], _) -> send notAllowed
  -- a slice of the pattern made at start-up (O(1) on a strict ByteString); above 10 MiB: 404
  (["download", n], "GET") -> case boundedInt downloadMax n of
    Just len ->
      send (respond status200 "application/octet-stream" (BL.fromStrict (B.take len downloadBuf)))
    Nothing -> send (text status404 "Not Found")
  (["download", _], _) -> send notAllowed
  (path, method) | Just answer <- routes tfb path req -> if method == "GET" then answer >>= send else send notAllowed
  _ -> send (text status404 "Not Found")
  where
    notAllowed = text status405 "Method Not Allowed"
    dbDown = text status503 "database unavailable"
    usersSql = "SELECT id, username, name, sex, address, mail, birthdate FROM \"user\" ORDER BY id"
    toUser (i, u, n, s, a, m, b) = User i u n s (caesar a) m b

-- | The wait of /delay/{ms}: plain decimal digits (read alone would take spaces, and wrap an Int
-- past its range), at most 10,000.
delayMs :: Text -> Maybe Int
delayMs = boundedInt 10000

-- | Plain decimal digits, at most the bound.
boundedInt :: Integer -> Text -> Maybe Int
boundedInt bound t
  | T.null t || not (T.all isDigit t) = Nothing
  | otherwise = case readMaybe (T.unpack t) :: Maybe Integer of
      Just n | n <= bound -> Just (fromInteger n)
      _ -> Nothing

-- | The largest /download/{n}: 10 MiB.
downloadMax :: Integer
downloadMax = 10 * 1024 * 1024

-- * Main

main :: IO ()
main = do
  host <- maybe "127.0.0.1" id <$> lookupEnv "HOST"
  port <- maybe 8080 id . (>>= readMaybe) <$> lookupEnv "PORT"
  dbUrl <- maybe "postgres://postgres:bench@127.0.0.1:55432/postgres" id <$> lookupEnv "DATABASE_URL"
  poolSize <- maybe 10 id . (>>= readMaybe) <$> lookupEnv "DB_POOL_SIZE"
  -- without STATIC_DIR, a folder that does not exist: every /static/ file is a 404
  staticDir <- maybe "/nonexistent/restbench-static" id <$> lookupEnv "STATIC_DIR"
  -- libpq takes the URL as is; connect_timeout bounds a connection attempt, and the server
  -- cancels a query stuck on a lock after 2 s (options=-c statement_timeout=2000)
  let connStr = BC.pack (dbUrl ++ (if '?' `elem` dbUrl then "&" else "?")
                         ++ "connect_timeout=2&options=-c%20statement_timeout%3D2000")
  -- one stripe of DB_POOL_SIZE connections, opened on demand, idle ones closed after 60 s
  pool <- createPool (connectPostgreSQL connStr) close 1 60 poolSize
  tfb <- newTfb pool
  -- byte i is i mod 256 (a Word8 wraps); /download/{n} sends its first n bytes
  let !downloadBuf = fst (B.unfoldrN (fromInteger downloadMax) (\i -> Just (i, i + 1)) 0)
  now <- getCurrentTime
  let started = now { utctDayTime = truncateMillis (utctDayTime now) }
      truncateMillis t = picosecondsToDiffTime ((floor (toRational t * 1000) :: Integer) * 1000000000)
      titles = [ "Do some stuff", "Do more stuff", "Even more stuff", "Yihaa"
               , "Java is great! Or isn't it?", "Foo Bar", "Lorem ipsum", "Dolor sit amet" ]
      todos = [TodoItem t started | t <- titles]
      -- the file server's defaults stat the file per request and send it with Warp's sendfile,
      -- Last-Modified from the mtime (ssUseHash is off, so no ETag) and a 304 for an equal
      -- If-Modified-Since; no folder listing and no index files, which the workload never asks for
      static = staticApp (defaultFileServerSettings staticDir) { ssListing = Nothing, ssIndices = [] }
      -- gzip per request for clients that accept it (it adds Vary: Accept-Encoding); the default
      -- 860-byte threshold would skip the ~500-byte todo document; files are sent as they are
      compress = gzip def { gzipFiles = GzipIgnore, gzipSizeThreshold = 100 }
      settings =
        Warp.setHost (fromString host)
          . Warp.setPort port
          . Warp.setTimeout 30                       -- idle / slow-header connections closed
          . Warp.setMaxTotalHeaderLength (16 * 1024) -- header size limit (431 above)
          . Warp.setMaximumBodyFlush (Just (4 * 1024 * 1024))
          . Warp.setBeforeMainLoop
              (hPutStrLn stderr ("haskell-warp listening on " ++ host ++ ":" ++ show port
                                 ++ " (capabilities " ++ show numCapabilities ++ ")"))
          $ Warp.defaultSettings
  Warp.runSettings settings (compress (app todos pool tfb static downloadBuf))
