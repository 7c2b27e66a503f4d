/** The whole suite in one process against one live concord, so the coverage check at the end
 * sees every request. Modules run in this order; errors stays late because it locks bad keys
 * out for a while, operations last. */

import { after } from "node:test";
import { shutdown } from "./support.js";
import "./memories.js";
import "./conflicts.js";
import "./admin.js";
import "./retries.js";
import "./wake_events.js";
import "./example.js";
import "./errors.js";
import "./operations.js";

after(shutdown);
