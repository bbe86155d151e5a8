{-# LANGUAGE OverloadedStrings #-}
{-# LANGUAGE ScopedTypeVariables #-}
-- | TechEmpower's six test types over the same postgresql-simple pool as /users: json, db,
-- queries, fortunes, updates and cached-queries
-- (https://github.com/TechEmpower/FrameworkBenchmarks/wiki/Project-Information-Framework-Tests-Overview).
-- Warp adds the Server and Date headers to every answer. Every World row is its own query
-- (postgresql-simple has no prepared statements); the fortunes page is blaze-html, which
-- escapes the <script> row; cached-queries read through lrucache's 'AtomicLRU', filled from
-- CachedWorld at start-up and on a miss; random ids from random's global generator.
module Tfb (Tfb, newTfb, routes) where

import Control.Exception (SomeException, try)
import Control.Monad (forM, forM_, replicateM)
import Data.Aeson (ToJSON (..), encode, object, pairs, (.=))
import qualified Data.ByteString.Char8 as BC
import qualified Data.ByteString.Lazy as BL
import qualified Data.Cache.LRU.IO as LRU
import Data.List (sortOn)
import qualified Data.Map.Strict as Map
import Data.Pool (Pool, withResource)
import Data.Text (Text)
import Database.PostgreSQL.Simple (Connection, Only (..), Query, execute, executeMany, query, query_)
import Network.HTTP.Types (Status, hContentLength, hContentType, status200, status503)
import Network.Wai (Request, Response, queryString, responseLBS)
import System.Random (randomRIO)
import System.Timeout (timeout)
import Text.Blaze.Html (Html, preEscapedToHtml, toHtml)
import qualified Text.Blaze.Html.Renderer.Utf8 as Blaze
import qualified Text.Blaze.Html5 as H
import Text.Read (readMaybe)

-- * Data

data World = World !Int !Int

instance ToJSON World where
  toJSON (World i r) = object ["id" .= i, "randomNumber" .= r]
  toEncoding (World i r) = pairs ("id" .= i <> "randomNumber" .= r)

newtype Message = Message Text

instance ToJSON Message where
  toJSON (Message m) = object ["message" .= m]
  toEncoding (Message m) = pairs ("message" .= m)

data Fortune = Fortune { fortuneId :: !Int, fortuneMessage :: !Text }

-- | The pool /users reads through and the CachedWorld cache.
data Tfb = Tfb { pool :: Pool Connection, cache :: LRU.AtomicLRU Int World }

-- | The cache holds all of CachedWorld's 10,000 rows, read once here; if the database is down at
-- start-up, the rows come in on their first miss.
newTfb :: Pool Connection -> IO Tfb
newTfb p = do
  c <- LRU.newAtomicLRU (Just 10000)
  r <- timeout 5000000 (try (withResource p (\conn -> query_ conn cachedAllSql)))
  case r of
    Just (Right rows) -> forM_ rows (\(i, n) -> LRU.insert i (World i n) c)
    Just (Left (_ :: SomeException)) -> pure ()
    Nothing -> pure ()
  pure (Tfb p c)

worldSql, cachedSql, cachedAllSql, fortunesSql :: Query
worldSql = "SELECT id, randomNumber FROM World WHERE id = ?"
cachedSql = "SELECT id, randomNumber FROM CachedWorld WHERE id = ?"
cachedAllSql = "SELECT id, randomNumber FROM CachedWorld"
fortunesSql = "SELECT id, message FROM Fortune"

-- * Routes

-- | The answer for a TechEmpower path, or Nothing for any other path.
routes :: Tfb -> [Text] -> Request -> Maybe (IO Response)
routes t path req = case path of
  ["json"] -> Just (pure (json (Message "Hello, World!")))
  ["db"] -> Just (database (json . head <$> worlds t 1))
  ["queries"] -> Just (database (json <$> worlds t (count "queries" req)))
  ["fortunes"] -> Just (database (fortunes t))
  ["updates"] -> Just (database (updates t (count "queries" req)))
  ["cached-queries"] -> Just (database (json <$> cached t (count "count" req)))
  _ -> Nothing

-- | `name` of the query string clamped to 1..500; missing or not a number is 1.
count :: BC.ByteString -> Request -> Int
count name req = case lookup name (queryString req) >>= id >>= readMaybe . BC.unpack of
  Just (n :: Integer) | n >= 1 -> fromIntegral (min n 500)
  _ -> 1

randomId :: IO Int
randomId = randomRIO (1, 10000)

-- | Pool acquire, connect and queries bounded to 5 s (500 rows take more than /users's 2 s may
-- allow; each statement still has the 2 s statement_timeout): any error or time-out is 503.
database :: IO Response -> IO Response
database act = do
  r <- timeout 5000000 (try act)
  pure $ case r of
    Just (Right resp) -> resp
    Just (Left (_ :: SomeException)) -> dbDown
    Nothing -> dbDown
  where dbDown = respond status503 "text/plain; charset=utf-8" "database unavailable"

-- | n random World rows on one connection, each its own query.
worlds :: Tfb -> Int -> IO [World]
worlds t n = withResource (pool t) $ \conn -> replicateM n (randomId >>= world conn)

world :: Connection -> Int -> IO World
world conn i = do
  rows <- query conn worldSql (Only i)
  case rows of
    [(wid, r)] -> pure (World wid r)
    _ -> fail ("no World row " ++ show i)

-- | Every fortune and one added, sorted by message here, rendered by blaze-html.
fortunes :: Tfb -> IO Response
fortunes t = do
  rows <- withResource (pool t) (\conn -> query_ conn fortunesSql)
  let all' = Fortune 0 "Additional fortune added at request time."
             : [Fortune i m | (i, m) <- rows]
  pure (respond status200 "text/html; charset=utf-8" (Blaze.renderHtml (page (sortOn fortuneMessage all'))))

page :: [Fortune] -> Html
page fs = do
  preEscapedToHtml ("<!DOCTYPE html>" :: Text)
  H.html $ do
    H.head (H.title "Fortunes")
    H.body $ H.table $ do
      H.tr (H.th "id" >> H.th "message")
      forM_ fs $ \f -> H.tr (H.td (toHtml (fortuneId f)) >> H.td (toHtml (fortuneMessage f)))

-- | n rows read one query each, each given a new number, written in one statement before the
-- answer (an id drawn twice keeps its last number, the one answered last).
updates :: Tfb -> Int -> IO Response
updates t n = withResource (pool t) $ \conn -> do
  rows <- replicateM n (randomId >>= world conn)
  changed <- forM rows (\(World i _) -> World i <$> randomId)
  let latest = Map.toList (Map.fromList [(i, r) | World i r <- changed])
  _ <- case latest of
    [(i, r)] -> execute conn updateOneSql (r, i)
    _ -> executeMany conn updateSql latest
  pure (json changed)
  where
    updateOneSql = "UPDATE World SET randomNumber = ? WHERE id = ?"
    -- postgresql-simple's executeMany repeats the VALUES group once per row
    updateSql = "UPDATE World SET randomNumber = v.r FROM (VALUES (?, ?)) AS v (id, r) WHERE World.id = v.id"

-- | n random CachedWorld rows through the cache: a miss reads the row once and keeps it.
cached :: Tfb -> Int -> IO [World]
cached t n = replicateM n $ do
  i <- randomId
  hit <- LRU.lookup i (cache t)
  case hit of
    Just w -> pure w
    Nothing -> do
      rows <- withResource (pool t) (\conn -> query conn cachedSql (Only i))
      case rows of
        [(wid, r)] -> let w = World wid r in LRU.insert i w (cache t) >> pure w
        _ -> fail ("no CachedWorld row " ++ show i)

-- * Responses

respond :: Status -> BC.ByteString -> BL.ByteString -> Response
respond st ctype body =
  responseLBS st [(hContentType, ctype), (hContentLength, BC.pack (show (BL.length body)))] body

json :: ToJSON a => a -> Response
json = respond status200 "application/json" . encode
