-- Billing templates, their subscribers (BillingTemplateClient) and the purchases billing made.

-- `data` is the BillingTemplate as the API returns it (subscription_has_active_clients is
-- worked out on read).
CREATE TABLE billing_templates (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    merchant_id TEXT NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
    data BLOB NOT NULL
);
CREATE INDEX billing_templates_merchant ON billing_templates(merchant_id, seq);

-- Subscribers. `status` mirrors data.status for the rules below; `internal` is the engine's
-- own state (anchor date, next period, recurring token, generation of its billing job).
CREATE TABLE billing_subscribers (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    merchant_id TEXT NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
    template_id TEXT NOT NULL REFERENCES billing_templates(id) ON DELETE CASCADE,
    client_id TEXT NOT NULL,
    status TEXT NOT NULL,
    data BLOB NOT NULL,
    internal BLOB NOT NULL
);
CREATE INDEX billing_subscribers_template ON billing_subscribers(template_id, seq);
-- Spec: subscriber_already_exists. One live subscription per client and template, so two
-- racing add_subscriber calls cannot both win; an ended (inactive) one does not count.
CREATE UNIQUE INDEX billing_subscribers_live ON billing_subscribers(template_id, client_id)
    WHERE status IN ('pending', 'active', 'subscription_paused');
-- A deleted client's live subscriptions end with it.
CREATE INDEX billing_subscribers_client ON billing_subscribers(client_id)
    WHERE status IN ('pending', 'active', 'subscription_paused');

-- Which subscriber a purchase bills (its payment counts a cycle, may store a token).
CREATE TABLE billing_purchases (
    purchase_id TEXT PRIMARY KEY,
    subscriber_id TEXT NOT NULL REFERENCES billing_subscribers(id) ON DELETE CASCADE,
    period INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX billing_purchases_subscriber ON billing_purchases(subscriber_id);
