/* core/abort.c: the abort latch shared by both handle types (core/abort.h). */
#include "core/abort.h"

int sbx__abort_init(struct sbx__abort *a)
{
    a->is_pending = false;
    a->stop = NULL;
    a->arg = NULL;
    return pthread_mutex_init(&a->mu, NULL);
}

void sbx__abort_destroy(struct sbx__abort *a)
{
    pthread_mutex_destroy(&a->mu);
}

bool sbx__abort_take(struct sbx__abort *a)
{
    pthread_mutex_lock(&a->mu);
    bool was_pending = a->is_pending;
    a->is_pending = false;
    pthread_mutex_unlock(&a->mu);
    return was_pending;
}

bool sbx__abort_begin(struct sbx__abort *a, void (*stop)(void *arg), void *arg)
{
    pthread_mutex_lock(&a->mu);
    bool was_pending = a->is_pending;
    a->is_pending = false;
    a->stop = stop;
    a->arg = arg;
    pthread_mutex_unlock(&a->mu);
    return was_pending;
}

void sbx__abort_end(struct sbx__abort *a)
{
    pthread_mutex_lock(&a->mu);
    a->stop = NULL;
    a->arg = NULL;
    pthread_mutex_unlock(&a->mu);
}

void sbx__abort_request(struct sbx__abort *a)
{
    pthread_mutex_lock(&a->mu);
    if (a->stop)
        a->stop(a->arg);
    else
        a->is_pending = true;
    pthread_mutex_unlock(&a->mu);
}

void sbx__abort_clear(struct sbx__abort *a)
{
    pthread_mutex_lock(&a->mu);
    a->is_pending = false;
    pthread_mutex_unlock(&a->mu);
}
