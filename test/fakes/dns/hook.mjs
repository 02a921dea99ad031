#!/usr/bin/env node
/**
 * Sets and removes TXT records in the DNS fake (test/fakes/dns/server.ts) from another process,
 * through its control endpoint (env DNS_FAKE_URL, the fake's controlUrl). It is what real ACME
 * clients run, unmodified:
 *
 *   lego --dns exec (EXEC_PATH=<this file>):   hook.mjs present <fqdn> <value>
 *                                              hook.mjs cleanup <fqdn> <value>
 *   certbot --manual-auth-hook    'node hook.mjs certbot-auth'     (reads CERTBOT_DOMAIN, CERTBOT_VALIDATION)
 *   certbot --manual-cleanup-hook 'node hook.mjs certbot-cleanup'
 *
 * Exits non-zero, saying why, when the fake refuses the change.
 */
const [command, fqdnArg, valueArg] = process.argv.slice(2);
const base = process.env.DNS_FAKE_URL;

function fail(message) {
  console.error(`dns fake hook: ${message}`);
  process.exit(2);
}

if (!base) fail('DNS_FAKE_URL is not set');

let method;
let name;
let value;
switch (command) {
  case 'present':
  case 'cleanup':
    if (!fqdnArg || valueArg === undefined) fail(`usage: ${command} <fqdn> <value>`);
    method = command === 'present' ? 'POST' : 'DELETE';
    name = fqdnArg;
    value = valueArg;
    break;
  case 'certbot-auth':
  case 'certbot-cleanup':
    if (!process.env.CERTBOT_DOMAIN || process.env.CERTBOT_VALIDATION === undefined)
      fail('CERTBOT_DOMAIN and CERTBOT_VALIDATION must be set');
    method = command === 'certbot-auth' ? 'POST' : 'DELETE';
    name = `_acme-challenge.${process.env.CERTBOT_DOMAIN.replace(/^\*\./, '')}`;
    value = process.env.CERTBOT_VALIDATION;
    break;
  default:
    fail('usage: present|cleanup <fqdn> <value>, or certbot-auth|certbot-cleanup');
}

const res = await fetch(`${base}/records`, { method, body: JSON.stringify({ name, type: 'TXT', value }) });
if (res.status >= 300) fail(`${method} ${name}: ${res.status} ${await res.text()}`);
