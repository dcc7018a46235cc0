/** The `.hx` project corpus of test/hql/projects (the folders stay in the source tree, not in dist). */
export const HQL_PROJECTS = new URL('../../../test/hql/projects/', import.meta.url).pathname;
/** A small social network (users, posts, follows) with a query for each form the language serves. */
export const SOCIAL = `${HQL_PROJECTS}social`;
