import assert from "node:assert/strict";
import { test } from "node:test";

import { errorText } from "../src/logic/errors";

test("the message of an Error, of a JSON-RPC error object, of anything else", () => {
  assert.equal(errorText(new Error("boom")), "boom");
  assert.equal(errorText({ code: -32603, message: "no map for x.js" }), "no map for x.js");
  assert.equal(errorText("plain"), "plain");
  assert.equal(errorText(undefined), "undefined");
});
