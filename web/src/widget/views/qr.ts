/**
 * The scanned code (`#/qr`): its state and target; a VIRGIN code is linked here to a product, an item or a
 * work order (`configure_qr/`), and a CONFIGURED one can be locked for good (`lock_qr/`, after a confirmation
 * in the page: the sandboxed widget has no `confirm()`).
 */
import { FormProblem, guardSubmit } from '../action.js';
import type { Ctx } from '../context.js';
import { type Child, field, fill, h, option, uid } from '../../kit/dom.js';
import { loading, showError, showSuccess } from '../notice.js';
import type { Item, ProductSummary, QrInfo, QrTransition, WorkOrder } from '../types.js';

type TargetType = 'PRODUCT' | 'ITEM' | 'WORK_ORDER';
const TARGET_NAMES: Record<TargetType, string> = { PRODUCT: 'Product', ITEM: 'Item', WORK_ORDER: 'Work order' };
const STATUS_TEXT: Record<string, string> = {
  VIRGIN: 'Not set up yet',
  CONFIGURED: 'Linked (can still be locked)',
  LOCKED: 'Locked: its link can no longer change',
};

interface Choice {
  id: string;
  label: string;
  detail?: string;
}

/** A radio list to pick one record, with an optional search box filtering it. */
function radioList(legend: string, choices: Choice[], onPick: (id: string) => void, searchable: boolean): HTMLElement {
  const name = uid('pick');
  const list = h('div', { class: 'pick-list' });
  const render = (q: string) => {
    const shown = q ? choices.filter((c) => `${c.label} ${c.detail ?? ''}`.toLowerCase().includes(q)) : choices;
    fill(
      list,
      shown.length === 0 ? h('p', { class: 'muted' }, 'Nothing to choose from.') : null,
      ...shown.map((c) => {
        const input = h('input', { type: 'radio', name, value: c.id, id: uid('choice'), required: true });
        input.addEventListener('change', () => input.checked && onPick(c.id));
        return h('div', { class: 'check' }, input, h('label', { for: input.id }, c.label, c.detail ? h('span', { class: 'muted' }, ` ${c.detail}`) : null));
      }),
    );
  };
  const parts: Child[] = [h('legend', {}, legend)];
  if (searchable) {
    const search = h('input', { type: 'search', autocomplete: 'off', placeholder: 'Name or SKU' });
    search.addEventListener('input', () => render(search.value.trim().toLowerCase()));
    parts.push(field('Search', search));
  }
  render('');
  return h('fieldset', { class: 'picker' }, ...parts, list);
}

function configurePanel(ctx: Ctx, qr: QrInfo, onDone: () => void): HTMLElement {
  let targetType: TargetType = 'PRODUCT';
  let targetId = '';
  const typeName = uid('target-type');
  const picker = h('div', { class: 'picker-box' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Link code');
  const notice = h('div', { class: 'form-notice' });
  const types = (Object.keys(TARGET_NAMES) as TargetType[]).map((t) => {
    const input = h('input', { type: 'radio', name: typeName, value: t, id: uid('tt') });
    input.checked = t === targetType;
    input.addEventListener('change', () => {
      if (!input.checked) return;
      targetType = t;
      targetId = '';
      void renderPicker();
    });
    return h('span', { class: 'segment' }, input, h('label', { for: input.id }, TARGET_NAMES[t]));
  });

  const renderPicker = async () => {
    fill(picker, loading());
    try {
      if (targetType === 'PRODUCT') {
        const products = await ctx.products();
        fill(
          picker,
          radioList(
            'Product',
            products.map((p) => ({ id: p.id, label: p.name, detail: `${p.sku} · ${p.stock_display}` })),
            (id) => (targetId = id),
            true,
          ),
        );
      } else if (targetType === 'WORK_ORDER') {
        const { work_orders } = await ctx.api.get<{ work_orders: WorkOrder[] }>('work_orders/');
        fill(
          picker,
          radioList(
            'Work order',
            work_orders.map((o) => ({ id: o.id, label: `${o.number} ${o.title}`, detail: o.due_date ? `due ${o.due_date}` : undefined })),
            (id) => (targetId = id),
            false,
          ),
        );
      } else {
        const serialized = (await ctx.products()).filter((p) => p.engine_type === 'serialized');
        const product = h(
          'select',
          { name: 'item_product' },
          option('', 'Choose a product', true),
          ...serialized.map((p: ProductSummary) => option(p.id, `${p.name} (${p.sku})`)),
        );
        const items = h('div');
        const onProduct = async (): Promise<void> => {
          targetId = '';
          if (!product.value) return items.replaceChildren();
          fill(items, loading());
          try {
            const answer = await ctx.api.get<{ items: Item[] }>('items/', { product_id: product.value });
            fill(
              items,
              radioList(
                'Item',
                answer.items.map((i) => ({ id: i.id, label: i.serial_number, detail: `at ${i.location_name}` })),
                (id) => (targetId = id),
                answer.items.length > 8,
              ),
            );
          } catch (err) {
            showError(items, err);
          }
        };
        product.addEventListener('change', () => void onProduct());
        fill(picker, serialized.length === 0 ? h('p', { class: 'muted' }, 'No serialized product has items.') : field('Product of the item', product), items);
      }
    } catch (err) {
      showError(picker, err);
    }
  };

  const form = h(
    'form',
    { class: 'configure' },
    h('fieldset', { class: 'segmented' }, h('legend', {}, 'Link this code to'), ...types),
    picker,
    h('div', { class: 'actions' }, submit),
  );
  guardSubmit(form, submit, 'Linking…', notice, () => {
    if (!targetId) throw new FormProblem(`Choose a ${TARGET_NAMES[targetType].toLowerCase()}.`);
    const body = { code: qr.code, target_type: targetType, target_id: targetId };
    return {
      signature: JSON.stringify(body),
      send: async () => {
        const answer = await ctx.api.post<QrTransition>('configure_qr/', body);
        ctx.setQr(answer);
        ctx.announce(`Code ${qr.code} linked to the ${TARGET_NAMES[targetType].toLowerCase()}.`);
        onDone();
      },
    };
  });
  void renderPicker();
  return h(
    'section',
    { class: 'panel' },
    h('h3', {}, 'Set up this code'),
    h('p', {}, 'This code is new. Choose what it stands for; scanning it then opens that record.'),
    form,
    notice,
  );
}

function lockPanel(ctx: Ctx, qr: QrInfo, onDone: () => void): HTMLElement {
  const notice = h('div', { class: 'form-notice' });
  const ask = h('button', { type: 'button', class: 'secondary' }, 'Lock code…');
  const confirmButton = h('button', { type: 'submit', class: 'danger' }, 'Yes, lock it for good');
  const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
  const confirmForm = h(
    'form',
    { class: 'confirm', hidden: true },
    h('p', { class: 'warning' }, `Lock code ${qr.code}? This cannot be undone.`),
    h('div', { class: 'actions' }, confirmButton, cancel),
  );
  ask.addEventListener('click', () => {
    confirmForm.hidden = false;
    ask.hidden = true;
    confirmButton.focus();
  });
  cancel.addEventListener('click', () => {
    confirmForm.hidden = true;
    ask.hidden = false;
    ask.focus();
  });
  guardSubmit(confirmForm, confirmButton, 'Locking…', notice, () => ({
    signature: qr.code,
    send: async () => {
      const answer = await ctx.api.post<QrTransition>('lock_qr/', { code: qr.code });
      ctx.setQr(answer);
      ctx.announce(`Code ${qr.code} locked.`);
      onDone();
    },
  }));
  return h(
    'section',
    { class: 'panel' },
    h('h3', {}, 'Lock this code'),
    h('p', {}, 'A locked code keeps its link for good: nobody can point it elsewhere.'),
    h('div', { class: 'actions' }, ask),
    confirmForm,
    notice,
  );
}

async function targetLink(ctx: Ctx, qr: QrInfo): Promise<Child> {
  if (!qr.target_type || !qr.target_id) return 'Nothing yet';
  if (qr.target_type === 'WORK_ORDER') {
    const orders = await ctx.api
      .get<{ work_orders: WorkOrder[] }>('work_orders/')
      .then((r) => r.work_orders)
      .catch(() => []);
    const order = orders.find((o) => o.id === qr.target_id);
    return h('a', { href: '#/work-orders' }, order ? `Work order ${order.number} ${order.title}` : 'A work order');
  }
  const product = qr.product_model_id ? (await ctx.products().catch(() => [])).find((p) => p.id === qr.product_model_id) : undefined;
  const label = qr.target_type === 'ITEM' ? `An item of ${product?.name ?? 'a product'}` : product ? `${product.name} (${product.sku})` : 'A product';
  return qr.product_model_id ? h('a', { href: `#/products/${qr.product_model_id}` }, label) : label;
}

export async function qrView(ctx: Ctx, view: HTMLElement): Promise<void> {
  const heading = h('h2', { tabindex: '-1' }, 'QR code');
  view.append(heading);
  if (!ctx.qr) {
    view.append(h('p', { class: 'muted' }, 'This widget was not opened from a QR code.'));
    return;
  }
  const body = h('div', {}, loading());
  const done = h('div', { class: 'form-notice' });
  view.append(body);
  try {
    ctx.setQr(await ctx.api.get<QrInfo>('qr_info/', { code: ctx.qr.code }));
  } catch (err) {
    showError(done, err); // show what we know from the scan
  }
  const render = async (justChanged: boolean) => {
    const qr = ctx.qr!;
    const target = await targetLink(ctx, qr);
    if (justChanged) showSuccess(done, qr.status === 'LOCKED' ? `Code ${qr.code} is locked.` : `Code ${qr.code} is linked.`);
    fill(
      body,
      h(
        'dl',
        { class: 'facts' },
        h('dt', {}, 'Code'),
        h('dd', { class: 'code' }, qr.code),
        h('dt', {}, 'State'),
        h('dd', {}, h('span', { class: `badge qr-${qr.status.toLowerCase()}` }, STATUS_TEXT[qr.status] ?? qr.status)),
        h('dt', {}, 'Linked to'),
        h('dd', {}, qr.target_type ? `${TARGET_NAMES[qr.target_type] ?? qr.target_type}: ` : '', target),
      ),
      done,
      qr.status === 'VIRGIN' ? configurePanel(ctx, qr, () => void render(true)) : null,
      qr.status === 'CONFIGURED' ? lockPanel(ctx, qr, () => void render(true)) : null,
    );
  };
  await render(false);
}
