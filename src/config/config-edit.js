// @ts-check
'use strict';
/**
 * Sets a few keys in the user's config.toml while keeping everything else in it (comments, order, the
 * commented-out example keys). The one rule for editing the config, shared by the gateway's commands
 * (`engine start`) and the install scripts' setup, which run from a clone; hence plain CommonJS.
 *
 * An edit replaces the key's line in its `[table]`, or adds it right under the table's header, or adds the
 * table at the end. The result is parsed back and must hold exactly the values asked for; a file shaped in a
 * way a line edit cannot safely change (the key set with a dotted name elsewhere, an inline table) is refused,
 * naming the key, and left as it was.
 *
 * @example
 *   setConfigValues('/home/me/.config/system1/config.toml', [
 *     { table: 'gateway', key: 'provider', value: 'systemone' },
 *     { table: 'providers.systemone', key: 'endpoint', value: 'http://127.0.0.1:8790' },
 *   ]);
 */
const fs = require('fs');
const path = require('path');
const { parse, stringify } = require('smol-toml');

/** @typedef {string | number | boolean | string[]} ConfigValue */
/** @typedef {{ table: string, key: string, value: ConfigValue }} ConfigSetting */

class ConfigEditError extends Error {}

/** @param {string} text */
function escapeForRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `key = value` as TOML writes it (strings quoted and escaped). @param {ConfigSetting} setting */
function lineOf(setting) {
  return stringify({ [setting.key]: setting.value }).trim();
}

/** A table header line, `[a.b]` with optional spaces and a trailing comment; not `[[array]]`. @param {string} line */
function headerName(line) {
  const match = /^\s*\[\s*([A-Za-z0-9_.\-"' ]+?)\s*\]\s*(#.*)?$/.exec(line);
  return match && !line.trim().startsWith('[[') ? match[1].replace(/\s*\.\s*/g, '.') : undefined;
}

/**
 * @param {string[]} lines
 * @param {ConfigSetting} setting
 */
function applyOne(lines, setting) {
  const start = lines.findIndex((line) => headerName(line) === setting.table);
  if (start === -1) {
    while (lines.length > 0 && lines[lines.length - 1].trim() === '') lines.pop();
    lines.push(...(lines.length > 0 ? [''] : []), `[${setting.table}]`, lineOf(setting), '');
    return;
  }
  let end = lines.findIndex((line, index) => index > start && /^\s*\[/.test(line));
  if (end === -1) end = lines.length;
  const keyLine = new RegExp(`^\\s*${escapeForRegExp(setting.key)}\\s*=`);
  const existing = lines.findIndex((line, index) => index > start && index < end && keyLine.test(line));
  if (existing !== -1) lines[existing] = lineOf(setting);
  else lines.splice(start + 1, 0, lineOf(setting));
}

/** @param {unknown} doc @param {string} table */
function tableOf(doc, table) {
  /** @type {any} */
  let node = doc;
  for (const part of table.split('.')) node = node && typeof node === 'object' ? node[part] : undefined;
  return node;
}

/**
 * The config text with the settings applied; throws ConfigEditError when the text is not valid TOML or the
 * edit would not give exactly the values asked for.
 * @param {string} text
 * @param {readonly ConfigSetting[]} settings
 * @returns {string}
 */
function editConfigText(text, settings) {
  try {
    parse(text);
  } catch (error) {
    throw new ConfigEditError(
      `the config is not valid TOML, so it was left as it is (${error instanceof Error ? error.message.split('\n')[0] : error})`,
    );
  }
  const newline = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.length === 0 ? [] : text.split(/\r?\n/);
  for (const setting of settings) applyOne(lines, setting);
  const edited = lines.join(newline);
  let doc;
  try {
    doc = parse(edited);
  } catch {
    doc = undefined;
  }
  for (const setting of settings) {
    const table = tableOf(doc, setting.table);
    const value = table && typeof table === 'object' ? table[setting.key] : undefined;
    if (JSON.stringify(value) !== JSON.stringify(setting.value)) {
      throw new ConfigEditError(
        `could not set ${setting.table}.${setting.key} by a line edit (the config sets it in another form); set it by hand: [${setting.table}] ${lineOf(setting)}`,
      );
    }
  }
  return edited;
}

/**
 * Applies the settings to the config file (created, with its folder, when missing) and replaces it in one
 * rename, so a reader never sees half a file. Returns whether the file changed.
 * @param {string} file
 * @param {readonly ConfigSetting[]} settings
 * @returns {boolean}
 */
function setConfigValues(file, settings) {
  const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const after = editConfigText(before, settings);
  if (after === before) return false;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const staged = `${file}.${process.pid}.tmp`;
  const mode = fs.existsSync(file) ? fs.statSync(file).mode & 0o777 : 0o600;
  fs.writeFileSync(staged, after.endsWith('\n') ? after : `${after}\n`, { mode });
  fs.renameSync(staged, file);
  return true;
}

module.exports = { setConfigValues, editConfigText, ConfigEditError };
