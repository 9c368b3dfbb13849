-- Run first in each transaction of a store whose DataSource lends connections at another
-- isolation than READ COMMITTED (REPEATABLE READ is MySQL's default). Without GLOBAL or SESSION it
-- applies to the next transaction only, so the connection goes back at the isolation it was lent
-- with. At REPEATABLE READ a locking read of an order that does not exist yet takes a gap lock, and
-- two first claims of one order holding it both wait to insert into it: a deadlock. At READ
-- COMMITTED the read takes no gap lock; the second insert waits on the first's row and gets a
-- duplicate key.
SET TRANSACTION ISOLATION LEVEL READ COMMITTED
