// SPDX-License-Identifier: GPL-2.0
/*
 * A debugfs view of user page tables as pt_iter walks them.
 *
 * /sys/kernel/debug/pt_iter/pid	write "PID [FLAGS]" to choose the task
 *					(and the pt_iter flags, default
 *					PT_ITER_HOLES | PT_ITER_BATCH);
 *					reads back "PID FLAGS".
 * /sys/kernel/debug/pt_iter/entries	for each VMA of that task, a header
 *					like the first line of a smaps block,
 *					then one line per pt_iter entry.
 *
 * The whole text is generated when "entries" is opened, into a buffer of at
 * most PT_DBG_BUF_SIZE bytes, and reads are served from that buffer: no
 * lock of the task is held while copying to user space.  Access is checked
 * as for /proc/PID/pagemap.  This is a debugging aid, not an ABI.
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/kdev_t.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/pid.h>
#include <linux/pt_iter.h>
#include <linux/ptrace.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_buf.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include <linux/uaccess.h>

#define PT_DBG_BUF_SIZE		SZ_1M
#define PT_DBG_FLAGS_ALL	(PT_ITER_HOLES | PT_ITER_BATCH)
#define PT_DBG_TRUNCATED	"... truncated\n"

/* The task chosen by writing "pid", and the flags to walk it with. */
static DEFINE_MUTEX(pt_dbg_mutex);
static struct pid *pt_dbg_pid;
static unsigned int pt_dbg_flags = PT_DBG_FLAGS_ALL;

/* The text served by one open "entries" file. */
struct pt_dbg_text {
	size_t len;
	char buf[];
};

/* State while generating the text. */
struct pt_dbg {
	struct seq_buf s;
	unsigned int line_start;	/* length before the current line */
	bool truncated;
};

static const char * const pt_dbg_type_names[] = {
	[PT_ITER_NONE]		= "none",
	[PT_ITER_FOLIO]		= "folio",
	[PT_ITER_PFN]		= "pfn",
	[PT_ITER_SWAP]		= "swap",
	[PT_ITER_MIGRATION]	= "migration",
	[PT_ITER_DEVICE]	= "device",
	[PT_ITER_HWPOISON]	= "hwpoison",
	[PT_ITER_MARKER]	= "marker",
};

static const char * const pt_dbg_level_names[] = {
	[PT_ITER_PTE]		= "pte",
	[PT_ITER_PMD]		= "pmd",
	[PT_ITER_PUD]		= "pud",
	[PT_ITER_P4D]		= "p4d",
	[PT_ITER_PGD]		= "pgd",
};

static const struct {
	unsigned int attr;
	const char *name;
} pt_dbg_attr_names[] = {
	{ PT_ATTR_CONT,		"cont" },
	{ PT_ATTR_HUGETLB,	"hugetlb" },
	{ PT_ATTR_WRITE,	"write" },
	{ PT_ATTR_DIRTY,	"dirty" },
	{ PT_ATTR_YOUNG,	"young" },
	{ PT_ATTR_SOFT_DIRTY,	"soft-dirty" },
	{ PT_ATTR_UFFD_WP,	"uffd-wp" },
	{ PT_ATTR_CLIPPED,	"clipped" },
	{ PT_ATTR_SHARED_TABLE,	"shared" },
};

static const char *pt_dbg_name(const char * const *names, size_t nr,
			       unsigned int i)
{
	return i < nr && names[i] ? names[i] : "?";
}

/*
 * End the line being written.  If it did not fit, take it back and note
 * that the text is truncated.  Returns false when the buffer is full.
 */
static bool pt_dbg_end_line(struct pt_dbg *d)
{
	seq_buf_putc(&d->s, '\n');
	if (seq_buf_has_overflowed(&d->s)) {
		d->s.len = d->line_start;
		d->truncated = true;
		return false;
	}
	d->line_start = seq_buf_used(&d->s);
	return true;
}

/* The name smaps shows at the end of a VMA's first line. */
static void pt_dbg_vma_name(struct pt_dbg *d, struct vm_area_struct *vma)
{
	const char *name = NULL;

	if (vma->vm_file) {
		seq_buf_path(&d->s, file_user_path(vma->vm_file), "\n");
		return;
	}
	if (vma->vm_ops && vma->vm_ops->name)
		name = vma->vm_ops->name(vma);
	if (!name)
		name = arch_vma_name(vma);
	if (!name) {
		if (vma_is_initial_heap(vma))
			name = "[heap]";
		else if (vma_is_initial_stack(vma))
			name = "[stack]";
	}
	if (name)
		seq_buf_puts(&d->s, name);
}

/* "start-end perms offset dev inode path", as smaps starts a block. */
static bool pt_dbg_vma(struct pt_dbg *d, struct vm_area_struct *vma)
{
	vm_flags_t flags = vma->vm_flags;
	unsigned long long pgoff = 0;
	unsigned long ino = 0;
	dev_t dev = 0;

	if (vma->vm_file) {
		const struct inode *inode = file_inode(vma->vm_file);

		dev = inode->i_sb->s_dev;
		ino = inode->i_ino;
		pgoff = (unsigned long long)vma->vm_pgoff << PAGE_SHIFT;
	}
	seq_buf_printf(&d->s, "%08lx-%08lx %c%c%c%c %08llx %02x:%02x %lu ",
		       vma->vm_start, vma->vm_end,
		       flags & VM_READ ? 'r' : '-',
		       flags & VM_WRITE ? 'w' : '-',
		       flags & VM_EXEC ? 'x' : '-',
		       flags & VM_MAYSHARE ? 's' : 'p',
		       pgoff, MAJOR(dev), MINOR(dev), ino);
	pt_dbg_vma_name(d, vma);
	return pt_dbg_end_line(d);
}

/*
 * One entry: "start-end type level nr=N [pfn=P] [swp=T:O] [order=O|zero]
 * attributes...".  Called with the entry's page-table lock held.
 */
static bool pt_dbg_entry(struct pt_dbg *d, const struct pt_iter *it)
{
	struct seq_buf *s = &d->s;
	bool zero = false;
	unsigned int i;

	seq_buf_printf(s, "  %08lx-%08lx %-9s %s nr=%lu",
		       it->addr, it->end,
		       pt_dbg_name(pt_dbg_type_names,
				   ARRAY_SIZE(pt_dbg_type_names), it->type),
		       pt_dbg_name(pt_dbg_level_names,
				   ARRAY_SIZE(pt_dbg_level_names), it->level),
		       pt_iter_nr_pages(it));

	switch (it->type) {
	case PT_ITER_NONE:
		break;
	case PT_ITER_PFN:
		if (it->level == PT_ITER_PTE)
			zero = is_zero_pfn(pt_iter_pfn(it));
		else if (it->level == PT_ITER_PMD)
			zero = is_huge_zero_pmd(it->pmd);
		fallthrough;
	case PT_ITER_FOLIO:
		seq_buf_printf(s, " pfn=%#lx", pt_iter_pfn(it));
		break;
	case PT_ITER_SWAP:
	case PT_ITER_MARKER:
		seq_buf_printf(s, " swp=%u:%#lx", swp_type(pt_iter_swp(it)),
			       swp_offset(pt_iter_swp(it)));
		break;
	default:
		seq_buf_printf(s, " swp=%u:%#lx pfn=%#lx",
			       swp_type(pt_iter_swp(it)),
			       swp_offset(pt_iter_swp(it)), pt_iter_pfn(it));
		break;
	}
	if (zero)
		seq_buf_puts(s, " zero");
	else if (it->folio)
		seq_buf_printf(s, " order=%u", folio_order(it->folio));

	for (i = 0; i < ARRAY_SIZE(pt_dbg_attr_names); i++)
		if (pt_iter_attrs(it) & pt_dbg_attr_names[i].attr)
			seq_buf_printf(s, " %s", pt_dbg_attr_names[i].name);

	return pt_dbg_end_line(d);
}

/* Every VMA of @mm and its entries, under the mmap lock. */
static int pt_dbg_walk_mm(struct pt_dbg *d, struct mm_struct *mm,
			  unsigned int flags)
{
	struct vm_area_struct *vma;
	struct vma_iterator vmi;
	struct pt_iter it;
	int ret = 0;

	if (mmap_read_lock_killable(mm))
		return -EINTR;
	vma_iter_init(&vmi, mm, 0);
	for_each_vma(vmi, vma) {
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		if (!pt_dbg_vma(d, vma))
			break;
		for_each_pt_entry(&it, vma, vma->vm_start, vma->vm_end, flags) {
			/* Leaving the loop ends the walk. */
			if (!pt_dbg_entry(d, &it))
				break;
		}
		if (d->truncated)
			break;
	}
	mmap_read_unlock(mm);
	return ret;
}

/* Fill @t with the text for @mm. */
static int pt_dbg_fill(struct pt_dbg_text *t, struct mm_struct *mm,
		       pid_t nr, const char *comm, unsigned int flags)
{
	struct pt_dbg d = { };
	int ret = 0;

	/* Keep room for the "truncated" line. */
	seq_buf_init(&d.s, t->buf, PT_DBG_BUF_SIZE - sizeof(PT_DBG_TRUNCATED));
	seq_buf_printf(&d.s, "# pid %d (%s) flags %#x%s%s", nr, comm, flags,
		       flags & PT_ITER_HOLES ? " holes" : "",
		       flags & PT_ITER_BATCH ? " batch" : "");
	if (pt_dbg_end_line(&d))
		ret = pt_dbg_walk_mm(&d, mm, flags);

	t->len = seq_buf_used(&d.s);
	if (d.truncated) {
		memcpy(t->buf + t->len, PT_DBG_TRUNCATED,
		       sizeof(PT_DBG_TRUNCATED) - 1);
		t->len += sizeof(PT_DBG_TRUNCATED) - 1;
	}
	return ret;
}

static int pt_dbg_entries_open(struct inode *inode, struct file *file)
{
	char comm[TASK_COMM_LEN];
	struct task_struct *task;
	struct pt_dbg_text *t;
	struct mm_struct *mm;
	unsigned int flags;
	struct pid *pid;
	pid_t nr;
	int ret;

	mutex_lock(&pt_dbg_mutex);
	pid = get_pid(pt_dbg_pid);
	flags = pt_dbg_flags;
	mutex_unlock(&pt_dbg_mutex);
	if (!pid)
		return -ESRCH;

	nr = pid_vnr(pid);
	task = get_pid_task(pid, PIDTYPE_PID);
	put_pid(pid);
	if (!task)
		return -ESRCH;
	/*
	 * As /proc/PID/pagemap: get_task_mm() (-ESRCH for a task without an
	 * mm) and ptrace_may_access(PTRACE_MODE_READ_FSCREDS) (-EACCES).
	 */
	mm = mm_access(task, PTRACE_MODE_READ_FSCREDS);
	get_task_comm(comm, task);
	put_task_struct(task);
	if (IS_ERR(mm))
		return PTR_ERR(mm);

	t = kvmalloc(struct_size(t, buf, PT_DBG_BUF_SIZE), GFP_KERNEL_ACCOUNT);
	if (t)
		ret = pt_dbg_fill(t, mm, nr, comm, flags);
	else
		ret = -ENOMEM;
	mmput(mm);
	if (ret) {
		kvfree(t);
		return ret;
	}
	file->private_data = t;
	return 0;
}

static ssize_t pt_dbg_entries_read(struct file *file, char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct pt_dbg_text *t = file->private_data;

	return simple_read_from_buffer(ubuf, count, ppos, t->buf, t->len);
}

static int pt_dbg_entries_release(struct inode *inode, struct file *file)
{
	kvfree(file->private_data);
	return 0;
}

static const struct file_operations pt_dbg_entries_fops = {
	.owner		= THIS_MODULE,
	.open		= pt_dbg_entries_open,
	.read		= pt_dbg_entries_read,
	.llseek		= default_llseek,
	.release	= pt_dbg_entries_release,
};

static ssize_t pt_dbg_pid_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	unsigned int flags;
	char buf[32];
	pid_t nr;
	int len;

	mutex_lock(&pt_dbg_mutex);
	nr = pt_dbg_pid ? pid_vnr(pt_dbg_pid) : 0;
	flags = pt_dbg_flags;
	mutex_unlock(&pt_dbg_mutex);

	len = scnprintf(buf, sizeof(buf), "%d %#x\n", nr, flags);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

/* "PID [FLAGS]": PID in the writer's pid namespace, FLAGS PT_ITER_*. */
static ssize_t pt_dbg_pid_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct pid *pid, *old;
	int n, nr, flags;
	char buf[32];

	if (*ppos || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';

	flags = PT_DBG_FLAGS_ALL;
	n = sscanf(buf, "%d %i", &nr, &flags);
	if (n < 1 || nr <= 0 || (flags & ~PT_DBG_FLAGS_ALL))
		return -EINVAL;

	pid = find_get_pid(nr);
	if (!pid)
		return -ESRCH;

	mutex_lock(&pt_dbg_mutex);
	old = pt_dbg_pid;
	pt_dbg_pid = pid;
	pt_dbg_flags = flags;
	mutex_unlock(&pt_dbg_mutex);
	put_pid(old);
	return count;
}

static const struct file_operations pt_dbg_pid_fops = {
	.owner		= THIS_MODULE,
	.open		= simple_open,
	.read		= pt_dbg_pid_read,
	.write		= pt_dbg_pid_write,
	.llseek		= default_llseek,
};

static int __init pt_iter_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("pt_iter", NULL);

	debugfs_create_file("pid", 0600, dir, NULL, &pt_dbg_pid_fops);
	debugfs_create_file("entries", 0400, dir, NULL, &pt_dbg_entries_fops);
	return 0;
}
late_initcall(pt_iter_debugfs_init);
