-- Copies (issue 31): what made a message one of several sends of the same event to the same
-- target, and its place among them. NULL on an ordinary message (and on older ones).
-- cause: 'scenario:<name>' (a webhook.delivery / callback.delivery rule's copies),
-- 'outcome_header:<point>', 'hold:<hold id>' (a hold's duplicate), 'replay:<message id>'.
ALTER TABLE delivery_messages ADD COLUMN copy INTEGER;
ALTER TABLE delivery_messages ADD COLUMN copies INTEGER;
ALTER TABLE delivery_messages ADD COLUMN cause TEXT;
