import { useEffect, useState } from 'preact/hooks';
import type { NodeDetail } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useAction } from '../../api/use-action.js';
import { useSubmit } from '../../api/use-submit.js';
import { Field } from '../../components/Field.js';
import { FormError } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { navigate } from '../../router.js';

/**
 * A node's owner actions (docs/api/nodes.md "Owner management"): rename, tags, allow private
 * targets, share (PATCH /v1/nodes/{id}); disable or enable (POST …/disable, …/enable); remove
 * (DELETE: the credential is revoked and the node leaves the directory).
 */
export function NodeOwnerActions({ node, changed }: { node: NodeDetail; changed: () => void }) {
  const base = `/v1/nodes/${encodeURIComponent(node.id)}`;
  const [name, setName] = useState(node.name);
  const [tags, setTags] = useState(node.tags.join(', '));
  const [allow_private, setAllowPrivate] = useState(node.allow_private === true);
  const [shared, setShared] = useState(node.shared === true);
  const [saved, setSaved] = useState(false);
  useEffect(() => { setName(node.name); setTags(node.tags.join(', ')); setAllowPrivate(node.allow_private === true); setShared(node.shared === true); }, [node]);
  const save = useSubmit(async () => {
    setSaved(false);
    await api('PATCH', base, { name, tags: tags.split(',').map((s) => s.trim()).filter(Boolean), allow_private, shared });
    setSaved(true);
    changed();
  });
  const action = useAction(changed);
  const remove = () => action.run(async () => {
    if (!confirm(t('node.remove_confirm', { name: node.name }))) return;
    await api('DELETE', base);
    navigate('/nodes');
  });
  return (
    <>
      <h2>{t('node.settings')}</h2>
      <form onSubmit={save.submit} class="narrow">
        <Field id="node-name" label={t('node.name')}><input id="node-name" required maxLength={64} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} /></Field>
        <Field id="node-tags" label={t('node.tags_input')}><input id="node-tags" value={tags} onInput={(e) => setTags((e.target as HTMLInputElement).value)} /></Field>
        <label class="check"><input type="checkbox" checked={allow_private} onChange={(e) => setAllowPrivate((e.target as HTMLInputElement).checked)} />{t('node.allow_private')}</label>
        <label class="check"><input type="checkbox" checked={shared} onChange={(e) => setShared((e.target as HTMLInputElement).checked)} />{t('node.shared')}</label>
        <FormError id="node-save-error" error={save.error} />
        <button type="submit" class="primary" disabled={save.busy}>{t('node.save')}</button>
        {saved && <span role="status">{t('node.saved')}</span>}
      </form>
      <h2>{t('node.actions')}</h2>
      <div class="actions">
        {node.status === 'disabled'
          ? <button type="button" onClick={() => void action.call('POST', `${base}/enable`)}>{t('node.enable')}</button>
          : node.status !== 'banned' && <button type="button" onClick={() => void action.call('POST', `${base}/disable`)}>{t('node.disable')}</button>}
        <button type="button" class="danger" onClick={() => void remove()}>{t('node.remove')}</button>
      </div>
      <FormError id="node-action-error" error={action.error} />
    </>
  );
}
