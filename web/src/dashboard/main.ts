/**
 * The administration dashboard: sign-in, the shell (top bar, navigation, notices) and hash routing to one
 * module per screen (`#/products`, `#/channels/<id>`, …). Only what the signed-in user may use is listed:
 * channels, deliveries, API keys, users and the audit log are for the company's admins; a viewer gets no write controls.
 */
import { get, hasSession, onSessionEnd, signIn, signOut } from './api.js';
import { fill, h } from './dom.js';
import { Form, str } from './form.js';
import type { Me } from './model.js';
import { Screen, ScreenContext, parseHash } from './screen.js';
import { clearNotice, errorBox, setNoticeRegion } from './ui.js';
import { screen as apiKeys } from './screens/api-keys.js';
import { screen as auditLog } from './screens/audit-log.js';
import { screen as batches } from './screens/batches.js';
import { screen as channels } from './screens/channels.js';
import { screen as deliveries } from './screens/deliveries.js';
import { screen as events } from './screens/events.js';
import { screen as importExport } from './screens/import-export.js';
import { screen as items } from './screens/items.js';
import { screen as locations } from './screens/locations.js';
import { screen as movements } from './screens/movements.js';
import { screen as overview } from './screens/overview.js';
import { screen as products } from './screens/products.js';
import { screen as qrCodes } from './screens/qr-codes.js';
import { screen as rules } from './screens/rules.js';
import { screen as scanSessions } from './screens/scan-sessions.js';
import { screen as stock } from './screens/stock.js';
import { screen as users } from './screens/users.js';
import { screen as workOrders } from './screens/work-orders.js';

const SCREENS: Screen[] = [
  overview,
  products,
  importExport,
  stock,
  movements,
  locations,
  items,
  batches,
  workOrders,
  qrCodes,
  rules,
  events,
  channels,
  deliveries,
  apiKeys,
  scanSessions,
  users,
  auditLog,
];
const GROUPS: Screen['group'][] = ['Overview', 'Catalog', 'Stock', 'Operations', 'Monitoring', 'Administration'];
/** The first screen after sign-in (docs/api/overview-and-appearance.md). */
const HOME = '#/overview';
const APP_TITLE = 'Inventory dashboard';

const app = document.getElementById('app')!;
let me: Me | null = null;
let screenRoot: HTMLElement | null = null;
let nav: HTMLElement | null = null;
let menuToggle: HTMLButtonElement | null = null;
let renderSeq = 0;
/** Set by `go()`: the notice of the action that navigated stays visible. */
let keepNotice = false;

const isAdmin = () => me?.role === 'admin';
/** A viewer reads everything and changes nothing (docs/api/roles-and-audit-log.md): write controls are hidden. */
const isViewer = () => me?.role === 'viewer';
const visibleScreens = () => SCREENS.filter((s) => !s.adminOnly || isAdmin());

function showLogin(message?: string): void {
  me = null;
  screenRoot = null;
  document.title = `Sign in · ${APP_TITLE}`;
  const form = new Form({
    label: 'Sign in',
    fields: [
      { name: 'username', label: 'Username', required: true, autocomplete: 'username' },
      { name: 'password', label: 'Password', type: 'password', required: true, autocomplete: 'current-password' },
    ],
    submitLabel: 'Sign in',
    resetOnSuccess: false,
    onSubmit: async (values) => {
      await signIn(str(values.username).trim(), str(values.password));
      await startSession();
    },
  });
  fill(
    app,
    h(
      'main',
      { class: 'login', id: 'main' },
      h(
        'div',
        { class: 'login-card' },
        h('h1', null, APP_TITLE),
        h('p', { class: 'lead' }, 'Sign in with your username and password.'),
        message ? h('p', { class: 'notice notice-info', role: 'status' }, message) : null,
        form.el,
      ),
    ),
  );
  form.control('username').focus();
}

async function startSession(): Promise<void> {
  try {
    me = await get<Me>('/api/v1/users/me/');
  } catch (err) {
    // Refused tokens: the session-end listener has shown the sign-in form (with the reason) already.
    if (!hasSession()) return;
    fill(
      app,
      h(
        'main',
        { class: 'login', id: 'main' },
        h(
          'div',
          { class: 'login-card' },
          h('h1', null, APP_TITLE),
          errorBox(err),
          h('button', { type: 'button', class: 'primary', on: { click: () => void startSession() } }, 'Try again'),
        ),
      ),
    );
    return;
  }
  renderShell();
  await route();
}

function setMenu(open: boolean): void {
  nav?.classList.toggle('open', open);
  menuToggle?.setAttribute('aria-expanded', String(open));
}

function renderShell(): void {
  const notices = h('div', { class: 'notices', role: 'status', 'aria-live': 'polite' });
  setNoticeRegion(notices);
  screenRoot = h('div', { class: 'screen-slot' });
  menuToggle = h('button', { type: 'button', class: 'menu-toggle secondary', 'aria-expanded': 'false', 'aria-controls': 'nav' }, 'Menu');
  menuToggle.addEventListener('click', () => setMenu(!nav?.classList.contains('open')));
  nav = h(
    'nav',
    { id: 'nav', class: 'nav', 'aria-label': 'Main' },
    GROUPS.map((group) => {
      const entries = visibleScreens().filter((s) => s.group === group);
      if (!entries.length) return null;
      const id = `nav-${group.toLowerCase()}`;
      return h(
        'div',
        { class: 'nav-group' },
        h('p', { class: 'nav-title', id }, group),
        h(
          'ul',
          { 'aria-labelledby': id },
          entries.map((s) => h('li', null, h('a', { href: `#/${s.path}`, dataset: { path: s.path } }, s.title))),
        ),
      );
    }),
  );
  nav.addEventListener('keydown', (event: KeyboardEvent) => {
    if (event.key === 'Escape' && nav?.classList.contains('open')) {
      setMenu(false);
      menuToggle?.focus();
    }
  });
  const skip = h('a', { class: 'skip-link', href: '#main' }, 'Skip to content');
  skip.addEventListener('click', (event) => {
    event.preventDefault();
    document.getElementById('main')?.focus();
  });
  fill(
    app,
    skip,
    h(
      'header',
      { class: 'topbar' },
      h('a', { class: 'brand', href: HOME }, APP_TITLE),
      menuToggle,
      h(
        'div',
        { class: 'who' },
        h('span', { class: 'user' }, me!.username, ' ', h('span', { class: 'muted' }, `(${me!.role})`)),
        h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            on: {
              click: () => {
                signOut();
                showLogin('You are signed out.');
              },
            },
          },
          'Sign out',
        ),
      ),
    ),
    h(
      'div',
      { class: isViewer() ? 'layout read-only' : 'layout' },
      nav,
      h(
        'main',
        { id: 'main', tabindex: '-1' },
        isViewer()
          ? h('p', { class: 'notice notice-info read-only-note' }, 'You have read-only access (viewer): you can see everything, but not change it.')
          : null,
        notices,
        screenRoot,
      ),
    ),
  );
}

function go(hash: string): void {
  keepNotice = true;
  if (window.location.hash === hash) void route();
  else window.location.hash = hash;
}

async function route(): Promise<void> {
  if (!me || !screenRoot) return;
  const { path, id, query } = parseHash(window.location.hash);
  const screen = SCREENS.find((s) => s.path === path);
  if (!screen) {
    window.location.replace(HOME);
    return;
  }
  if (!keepNotice) clearNotice();
  keepNotice = false;
  setMenu(false);
  const seq = ++renderSeq;
  for (const link of nav?.querySelectorAll<HTMLAnchorElement>('a[data-path]') ?? []) {
    if (link.dataset.path === path) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  document.title = `${screen.title} · ${APP_TITLE}`;
  // Busy until the screen has loaded what it shows (lists mark themselves busy while they load, too).
  const root = h('div', { class: `screen screen-${screen.path}`, 'aria-busy': 'true' });
  fill(screenRoot, root);
  if (screen.adminOnly && !isAdmin()) {
    root.append(h('h1', { tabindex: '-1' }, screen.title), h('p', null, 'Only administrators of the company can use this screen.'));
  } else {
    const ctx: ScreenContext = { root, id, query, me, isAdmin: isAdmin(), go };
    try {
      await screen.render(ctx);
    } catch (err) {
      if (seq === renderSeq) root.append(errorBox(err));
    }
  }
  root.removeAttribute('aria-busy');
  if (seq === renderSeq) root.querySelector<HTMLElement>('h1')?.focus({ preventScroll: false });
}

onSessionEnd(() => showLogin('Your session has ended. Please sign in again.'));
window.addEventListener('hashchange', () => void route());

if (hasSession()) void startSession();
else showLogin();
