-- fencekit: the MySQL / MariaDB schema of MysqlOrderStore (MySQL 8.0.16 or later, MariaDB 10.6 or
-- later; InnoDB).
--
-- Run it as it is from your own migrations, or build the store with createSchema(true) and it
-- runs this file itself. Every statement is idempotent. If you configure other names, the store
-- replaces fencekit_orders and fencekit_orphans with them: do the same when you copy this file.
--
-- Times are milliseconds since the epoch (UTC), so a lease round-trips exactly. The columns a
-- statement compares or indexes (session_id, the nonces, provider_order_id) are VARBINARY, the
-- text's UTF-8 bytes: compared byte for byte, whatever the server's default collation (which may
-- ignore case, or trailing spaces, and so make two orders one); 1020 bytes hold 255 characters.

-- One row per order. The snapshot columns are written once, by the first claim.
CREATE TABLE IF NOT EXISTS fencekit_orders (
  session_id        VARBINARY(1020) NOT NULL PRIMARY KEY,
  product_id        VARCHAR(255)    CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  quantity          INT             NOT NULL CHECK (quantity >= 1),
  customer_email    VARCHAR(320)    CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
  amount_total      BIGINT          NOT NULL CHECK (amount_total >= 0),
  currency          VARCHAR(3)      CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  status            VARCHAR(11)     CHARACTER SET ascii COLLATE ascii_bin NOT NULL
                    CHECK (status IN ('PENDING', 'PROVISIONED', 'FAILED')),
  provider_order_id VARBINARY(1020),
  item_payload      MEDIUMTEXT      CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
  last_error        TEXT            CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
  -- claims granted so far, and the fence of the current claim when claim_nonce is set
  fence             BIGINT          NOT NULL CHECK (fence >= 1),
  claim_nonce       VARBINARY(32),
  claimed_at        BIGINT,
  lease_expires_at  BIGINT,
  settled_fence     BIGINT,
  settled_nonce     VARBINARY(32),
  updated_at        BIGINT          NOT NULL,
  CHECK ((provider_order_id IS NOT NULL) = (status = 'PROVISIONED')),
  CHECK ((claimed_at IS NULL) = (claim_nonce IS NULL)
     AND (lease_expires_at IS NULL) = (claim_nonce IS NULL)),
  CHECK ((settled_fence IS NULL) = (settled_nonce IS NULL))
) ENGINE = InnoDB;

-- Items bought by superseded attempts: real money, kept until someone reconciles it.
-- One row per (order, claim, provider order id), however often the complete is retried.
CREATE TABLE IF NOT EXISTS fencekit_orphans (
  seq               BIGINT          NOT NULL AUTO_INCREMENT UNIQUE,
  session_id        VARBINARY(1020) NOT NULL,
  claim_fence       BIGINT          NOT NULL,
  claim_nonce       VARBINARY(32)   NOT NULL,
  provider_order_id VARBINARY(1020) NOT NULL,
  item_payload      MEDIUMTEXT      CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
  recorded_at       BIGINT          NOT NULL,
  PRIMARY KEY (session_id, claim_fence, claim_nonce, provider_order_id)
) ENGINE = InnoDB;
