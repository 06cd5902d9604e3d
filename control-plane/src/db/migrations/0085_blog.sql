-- The blog (docs/api/blog.md): posts in Markdown, one locale each, translations linked by a shared
-- translation_key (at most one post per locale in a group); public once published_at has passed.
-- view_count is added to in batches (blog/view-counter.ts), never one write per read.
CREATE TABLE blog_posts (
  slug             text PRIMARY KEY,
  locale           text NOT NULL CHECK (locale IN ('cn', 'en')),
  title            text NOT NULL,
  summary          text NOT NULL DEFAULT '',
  author           text NOT NULL,
  tags             text[] NOT NULL DEFAULT '{}',
  cover_url        text NULL,
  translation_key  text NULL,
  content_md       text NOT NULL DEFAULT '',
  published_at     timestamptz NULL,
  view_count       bigint NOT NULL DEFAULT 0,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX blog_posts_published_idx ON blog_posts (published_at DESC, slug) WHERE published_at IS NOT NULL;
CREATE INDEX blog_posts_tags_idx ON blog_posts USING gin (tags);
CREATE UNIQUE INDEX blog_posts_translation_locale ON blog_posts (translation_key, locale) WHERE translation_key IS NOT NULL;
